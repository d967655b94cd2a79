// The grader's counter-based generator, on the CPU (the GPU computes the same functions).
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>

#include "random.cuh"

TEST_CASE("random ints: one stream per key, every 32-bit value reachable, negative ones as often as not") {
  const std::uint64_t key = workbook::random_key(2026), other = workbook::random_key(2027);
  constexpr std::size_t kDraws = 1 << 20;
  std::size_t negative = 0, differs_from_other_stream = 0, odd = 0;
  std::int32_t lowest = std::numeric_limits<std::int32_t>::max(), highest = std::numeric_limits<std::int32_t>::min();
  for (std::size_t i = 0; i < kDraws; ++i) {
    const std::int32_t x = workbook::random_int_element(key, i);
    CHECK(x == workbook::random_int_element(key, i));  // a function of (key, i) alone
    negative += x < 0;
    odd += (x & 1) != 0;
    differs_from_other_stream += x != workbook::random_int_element(other, i);
    lowest = std::min(lowest, x);
    highest = std::max(highest, x);
  }
  // Uniform over all 2^32 values: about half negative, half odd, and the extremes within a few
  // thousand of INT_MIN and INT_MAX (2^32 / 2^20 = 4096 apart on average).
  CHECK(negative > kDraws * 49 / 100);
  CHECK(negative < kDraws * 51 / 100);
  CHECK(odd > kDraws * 49 / 100);
  CHECK(odd < kDraws * 51 / 100);
  CHECK(lowest < std::numeric_limits<std::int32_t>::min() + (1 << 16));
  CHECK(highest > std::numeric_limits<std::int32_t>::max() - (1 << 16));
  CHECK(differs_from_other_stream > kDraws - 16);
}

TEST_CASE("random floats: multiples of 2^-24, at least -1 and below 1") {
  const std::uint64_t key = workbook::random_key(7);
  for (std::size_t i = 0; i < 4096; ++i) {
    const float x = workbook::random_element(key, i);
    CHECK(x >= -1.0f);
    CHECK(x < 1.0f);
    CHECK(double(x) * 0x1.0p24 == double(static_cast<long long>(double(x) * 0x1.0p24)));
  }
}
