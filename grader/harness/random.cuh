// The grader's counter-based generator, for host and device code alike: element i of the stream
// `seed` is a function of (seed, i) alone. So the CPU knows every value an input holds without
// reading it back, and a device-side check can compute the truth from the seed instead of
// trusting an input buffer the kernel under test could have changed.
#pragma once

#include <cstddef>
#include <cstdint>

namespace workbook {

__host__ __device__ inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The key of a stream: computed once per array, not per element.
__host__ __device__ inline std::uint64_t random_key(std::uint64_t seed) { return splitmix64(seed); }

// Element i of the stream with key `key`: the top 24 bits of a 64-bit draw give every multiple of
// 2^-24 in [0, 1) equally often, and 2u - 1 maps them onto [-1, 1) exactly.
__host__ __device__ inline float random_element(std::uint64_t key, std::size_t i) {
  const double unit = static_cast<double>(splitmix64(key + i) >> 40) * 0x1.0p-24;
  return static_cast<float>(2.0 * unit - 1.0);
}

// Element i of the stream as a 32-bit integer: the top 32 bits of the draw, so every int is equally
// likely (negative ones, 0, INT_MIN and INT_MAX included) and sums of them wrap around.
__host__ __device__ inline std::int32_t random_int_element(std::uint64_t key, std::size_t i) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(splitmix64(key + i) >> 32));
}

}  // namespace workbook
