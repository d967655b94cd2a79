// The oracles, checked against independent computations: a wrong oracle would pass wrong kernels.
#include <doctest/doctest.h>

#include <cstddef>
#include <stdexcept>
#include <vector>

#include "transpose_oracle.h"

namespace {

std::vector<float> counting(std::size_t n) {
  std::vector<float> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<float>(i);
  return values;
}

}  // namespace

TEST_CASE("transpose oracle: a 2 x 3 matrix, written out by hand") {
  // in = [0 1 2; 3 4 5] -> out = [0 3; 1 4; 2 5]
  CHECK(transpose_oracle::transpose(counting(6), 2, 3) == std::vector<float>{0, 3, 1, 4, 2, 5});
}

TEST_CASE("transpose oracle: element (r, c) lands at (c, r), across its 64 x 64 blocks") {
  for (const auto& [rows, cols] : std::vector<std::pair<int, int>>{{1, 1}, {1, 70}, {70, 1}, {65, 129}, {128, 64}}) {
    const std::vector<float> in = counting(std::size_t(rows) * cols);
    const std::vector<float> out = transpose_oracle::transpose(in, rows, cols);
    bool all = true;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) all = all && out[std::size_t(c) * rows + r] == in[std::size_t(r) * cols + c];
    CHECK_MESSAGE(all, rows, " x ", cols);
    CHECK(transpose_oracle::transpose(out, cols, rows) == in);  // twice is the identity
  }
}

TEST_CASE("transpose oracle: refuses a size that does not match the shape") {
  CHECK_THROWS_AS(transpose_oracle::transpose(counting(5), 2, 3), std::invalid_argument);
  CHECK(transpose_oracle::transpose({}, 0, 7).empty());
}
