// The grader's counter-based generator, for host and device code alike: element i of the stream
// `key` is a function of (key, i) alone. So the CPU knows every value an input holds without
// reading it back, and a device-side check can compute the truth from the key instead of trusting
// an input buffer the kernel under test could have changed.
//
// The function is Philox-4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel Random Numbers: As Easy
// as 1, 2, 3", SC'11): ten rounds of multiplications and xors keyed by 64 bits, built so that its key
// cannot be worked back from its outputs. A kernel reads the values of its inputs, and must not be
// able to compute from a few of them the values of the rest, or of the next call's ([secret-inputs]):
// the mixer used before (SplitMix64) inverts in a few operations, and 32-bit outputs left 2^32
// candidate keys, milliseconds of search.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace workbook {

struct PhiloxBlock {
  std::uint32_t word[4];
};

// Philox-4x32-10 of `counter` under `key`; its published known answers are in test_random.cu.
__host__ __device__ inline PhiloxBlock philox4x32_10(PhiloxBlock counter, std::uint64_t key) {
  constexpr std::uint32_t kMultiplier0 = 0xD2511F53u, kMultiplier1 = 0xCD9E8D57u;
  constexpr std::uint32_t kKeyStep0 = 0x9E3779B9u, kKeyStep1 = 0xBB67AE85u;  // the golden ratio's and sqrt(3)-1's bits
  std::uint32_t key0 = static_cast<std::uint32_t>(key), key1 = static_cast<std::uint32_t>(key >> 32);
  std::uint32_t* c = counter.word;
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t product0 = std::uint64_t{kMultiplier0} * c[0], product1 = std::uint64_t{kMultiplier1} * c[2];
    const std::uint32_t high0 = static_cast<std::uint32_t>(product0 >> 32), low0 = static_cast<std::uint32_t>(product0);
    const std::uint32_t high1 = static_cast<std::uint32_t>(product1 >> 32), low1 = static_cast<std::uint32_t>(product1);
    c[0] = high1 ^ c[1] ^ key0;
    c[1] = low1;
    c[2] = high0 ^ c[3] ^ key1;
    c[3] = low0;
    key0 += kKeyStep0;
    key1 += kKeyStep1;
  }
  return counter;
}

// The key of a stream, from the seed the grader drew for its array: computed once per array.
__host__ __device__ inline std::uint64_t random_key(std::uint64_t seed) { return seed; }

// The first 32-bit word of element i's block.
__host__ __device__ inline std::uint32_t random_word(std::uint64_t key, std::size_t i) {
  const std::uint64_t index = i;
  return philox4x32_10({{static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32), 0u, 0u}}, key)
      .word[0];
}

// Element i of the stream with key `key`: the top 24 bits of a 32-bit draw give every multiple of
// 2^-24 in [0, 1) equally often, and 2u - 1 maps them onto [-1, 1) exactly.
__host__ __device__ inline float random_element(std::uint64_t key, std::size_t i) {
  const double unit = static_cast<double>(random_word(key, i) >> 8) * 0x1.0p-24;
  return static_cast<float>(2.0 * unit - 1.0);
}

// Element i of the stream as a 32-bit integer: every int equally likely (negative ones, 0, INT_MIN and
// INT_MAX included), so sums of them wrap around.
__host__ __device__ inline std::int32_t random_int_element(std::uint64_t key, std::size_t i) {
  return static_cast<std::int32_t>(random_word(key, i));
}

// The seed of the `draw`th array drawn from `root` (a step's data key): Philox again, keyed by the
// root, so that one array's seed tells nothing of another's, nor of the root.
inline std::uint64_t seed_of_draw(std::uint64_t root, std::uint64_t draw) {
  const PhiloxBlock block =
      philox4x32_10({{static_cast<std::uint32_t>(draw), static_cast<std::uint32_t>(draw >> 32), 0x5EEDu, 0u}}, root);
  return (std::uint64_t{block.word[1]} << 32) | block.word[0];
}

}  // namespace workbook
