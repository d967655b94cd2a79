// The oracles, checked against independent computations: a wrong oracle would pass wrong kernels.
#include <doctest/doctest.h>

#include <cstddef>
#include <limits>
#include <stdexcept>
#include <vector>

#include "03_transpose/oracle.h"

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

#include "04_sgemm/oracle.h"
#include "06_reduce_scan/oracle.h"

TEST_CASE("sgemm oracle: a 2 x 3 times 3 x 2 product, written out by hand") {
  // A = [1 2 3; 4 5 6], B = [1 -1; 0 2; -2 1]: C = [-5 6; -8 12]
  const std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {1, -1, 0, 2, -2, 1};
  const sgemm_oracle::Row first = sgemm_oracle::row_of_product(a, b, 2, 2, 3, 0);
  const sgemm_oracle::Row second = sgemm_oracle::row_of_product(a, b, 2, 2, 3, 1);
  CHECK(first.value == std::vector<double>{-5, 6});
  CHECK(second.value == std::vector<double>{-8, 12});
  CHECK(first.magnitude == std::vector<double>{1 + 0 + 6, 1 + 4 + 3});
}

TEST_CASE("sgemm oracle: A times the identity is A, and k = 0 gives zeros") {
  const int m = 5, k = 7;
  std::vector<float> a(m * k), identity(k * k, 0.0f);
  for (int e = 0; e < m * k; ++e) a[e] = 0.25f * e - 3.0f;
  for (int d = 0; d < k; ++d) identity[d * k + d] = 1.0f;
  for (int i = 0; i < m; ++i) {
    const sgemm_oracle::Row row = sgemm_oracle::row_of_product(a, identity, m, k, k, i);
    for (int j = 0; j < k; ++j) CHECK(row.value[j] == a[i * k + j]);
  }
  const sgemm_oracle::Row empty = sgemm_oracle::row_of_product({}, {}, 3, 4, 0, 2);
  CHECK(empty.value == std::vector<double>(4, 0.0));
  CHECK_THROWS_AS(sgemm_oracle::row_of_product(a, identity, m, k, k, m), std::invalid_argument);
}

TEST_CASE("sgemm oracle: the error bound grows with k and is zero when nothing is summed") {
  CHECK(sgemm_oracle::error_bound(0, 5.0) == 0.0);
  const double at_1k = sgemm_oracle::error_bound(1024, 1.0), at_4k = sgemm_oracle::error_bound(4096, 1.0);
  CHECK(at_4k > 3.99 * at_1k);
  CHECK(at_1k == doctest::Approx(1024.0 / (1 << 24)).epsilon(1e-3));
}

TEST_CASE("reduce/scan oracle: sums wrap modulo 2^32, exactly, and the scan is exclusive") {
  using reduce_scan_oracle::exclusive_scan;
  using reduce_scan_oracle::sum;
  constexpr std::int32_t kMax = std::numeric_limits<std::int32_t>::max();
  constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
  CHECK(sum({}) == 0);
  CHECK(sum({kMax, 1}) == kMin);  // wraps around, as the GPU's integer adder does
  CHECK(sum({kMin, -1}) == kMax);
  CHECK(sum({5, -7, 2}) == 0);
  CHECK(exclusive_scan({}).empty());
  CHECK(exclusive_scan({3, 1, 4, 1, 5}) == std::vector<std::int32_t>{0, 3, 4, 8, 9});
  CHECK(exclusive_scan({kMax, 1, 1}) == std::vector<std::int32_t>{0, kMax, kMin});
  // The last exclusive prefix plus the last element is the sum, in any order of addition.
  const std::vector<std::int32_t> values = {kMax, kMin, -3, 77, kMax, kMax};
  CHECK(static_cast<std::int32_t>(static_cast<std::uint32_t>(exclusive_scan(values).back()) +
                                  static_cast<std::uint32_t>(values.back())) == sum(values));
}
