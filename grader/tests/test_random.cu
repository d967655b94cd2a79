// The grader's counter-based generator, on the CPU (the GPU computes the same functions).
#include <doctest/doctest.h>

#include <bit>
#include <cstdint>
#include <limits>

#include "harness/random.cuh"

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

TEST_CASE("the generator is Philox-4x32-10: Random123's published known answers") {
  using workbook::PhiloxBlock;
  const auto same = [](PhiloxBlock a, PhiloxBlock b) {
    return a.word[0] == b.word[0] && a.word[1] == b.word[1] && a.word[2] == b.word[2] && a.word[3] == b.word[3];
  };
  CHECK(same(workbook::philox4x32_10({{0, 0, 0, 0}}, 0), {{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}}));
  CHECK(same(workbook::philox4x32_10({{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}}, ~0ull),
             {{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}}));
  CHECK(same(workbook::philox4x32_10({{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}}, 0x299f31d0a4093822ull),
             {{0xd16cfe09u, 0x94fdcceb, 0x5001e420u, 0x24126ea1u}}));
}

TEST_CASE(
    "each array's seed is its own: a bit of the step's key or of the draw's number changes half the seed's bits") {
  constexpr std::uint64_t kRoot = 0x0123456789abcdefull;
  int flipped_by_root = 0, flipped_by_draw = 0;
  for (int bit = 0; bit < 64; ++bit) {
    flipped_by_root +=
        std::popcount(workbook::seed_of_draw(kRoot, 1) ^ workbook::seed_of_draw(kRoot ^ (1ull << bit), 1));
    flipped_by_draw +=
        std::popcount(workbook::seed_of_draw(kRoot, 1000) ^ workbook::seed_of_draw(kRoot, 1000 ^ (1ull << bit)));
  }
  // 32 of 64 bits on average; 64 trials each.
  CHECK(flipped_by_root > 64 * 28);
  CHECK(flipped_by_root < 64 * 36);
  CHECK(flipped_by_draw > 64 * 28);
  CHECK(flipped_by_draw < 64 * 36);
}
