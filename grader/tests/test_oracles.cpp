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

// The grader's check reads each output element's source instead of transposing a copy first.
TEST_CASE("transpose oracle: source_of names the input element transpose() puts at each output element") {
  for (const auto& [rows, cols] : std::vector<std::pair<int, int>>{{1, 1}, {2, 3}, {33, 7}, {1, 70}, {64, 129}}) {
    const std::vector<float> in = counting(std::size_t(rows) * cols), out = transpose_oracle::transpose(in, rows, cols);
    bool same = true;
    for (std::size_t j = 0; j < out.size(); ++j)
      same = same && out[j] == in[transpose_oracle::source_of(j, rows, cols)];
    CHECK_MESSAGE(same, rows, " x ", cols);
  }
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

// The checks a 2^28-int correctness case makes, in pieces and with nothing held, against sum() and
// exclusive_scan() compared one element after the other: over several pieces (kCheckGrain each at
// least), with wrong elements at the first, at a piece's first and last, and at the end.
TEST_CASE("reduce/scan oracle: the checks in pieces say what sum() and exclusive_scan() say") {
  using namespace reduce_scan_oracle;
  const std::size_t n = 5 * workbook::kCheckGrain + 123;
  std::vector<std::int32_t> values(n);
  std::uint64_t state = 12345;
  for (std::int32_t& v : values) {  // every 32-bit value likely, so that the sums wrap
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v = static_cast<std::int32_t>(static_cast<std::uint32_t>(state >> 32));
  }
  const auto value_at = [&](std::size_t i) { return values[i]; };
  CHECK(sum_of(n, value_at) == sum(values));
  CHECK(sum_of(0, value_at) == 0);
  CHECK(sum_of(1, value_at) == values[0]);

  const std::vector<std::int32_t> want = exclusive_scan(values);
  const auto sequentially = [&](const std::vector<std::int32_t>& got) {
    WrongPrefixSums result;
    for (std::size_t i = 0; i < n; ++i)
      if (got[i] != want[i] && result.wrong++ == 0) {
        result.first = i;
        result.should_be = want[i];
      }
    return result;
  };
  const auto same = [&](const std::vector<std::int32_t>& got) {
    const WrongPrefixSums in_pieces = wrong_prefix_sums(got, value_at), expected = sequentially(got);
    CHECK(in_pieces.wrong == expected.wrong);
    CHECK(in_pieces.first == expected.first);
    CHECK(in_pieces.should_be == expected.should_be);
    return in_pieces;
  };
  CHECK(same(want).wrong == 0);
  const std::size_t pieces = workbook::pieces_of(n, workbook::kCheckGrain), each = (n + pieces - 1) / pieces;
  for (const std::size_t where : {std::size_t{0}, each - 1, each, n - 1}) {
    std::vector<std::int32_t> got = want;
    got[where] ^= 1;
    const WrongPrefixSums found = same(got);
    CHECK(found.wrong == 1);
    CHECK(found.first == where);
  }
  std::vector<std::int32_t> several = want;
  for (const std::size_t where : {n - 1, each, std::size_t{7}}) several[where] += 3;
  CHECK(same(several).wrong == 3);
  // An inclusive scan where an exclusive one is asked: wrong wherever the element is not 0.
  std::vector<std::int32_t> inclusive(n);
  for (std::size_t i = 0; i < n; ++i)
    inclusive[i] =
        static_cast<std::int32_t>(static_cast<std::uint32_t>(want[i]) + static_cast<std::uint32_t>(values[i]));
  CHECK(same(inclusive).first == 0);
  CHECK(wrong_prefix_sums(std::span<const std::int32_t>{}, value_at).wrong == 0);
}
