// Lab 05_fft, given (you use it, you do not edit it): the checks every launcher makes, and the
// complex arithmetic every step needs.
//
// The starter and the reference solution include this one copy, so that the difference between
// them is only the lesson.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "fft.h"

namespace fft_lab {

// What every launcher checks before it launches. A problem a step cannot transform correctly is
// refused with a message that says why, never transformed wrongly.
inline void validate(const FftProblem& p, const char* step) {
  const std::string where = std::string(step) + ": ";
  if (p.batch < 0) throw std::invalid_argument(where + "batch must not be negative, not " + std::to_string(p.batch));
  if (p.batch == 0) return;
  if (p.in == nullptr || p.out == nullptr) throw std::invalid_argument(where + "in and out must not be null");
  const auto in_address = reinterpret_cast<std::uintptr_t>(p.in), out_address = reinterpret_cast<std::uintptr_t>(p.out);
  if (in_address % 16 != 0 || out_address % 16 != 0) throw std::invalid_argument(where + "in and out must be 16-byte aligned");
  const std::uintptr_t bytes = std::uintptr_t(p.batch) * kPoints * sizeof(float2);
  if (in_address < out_address + bytes && out_address < in_address + bytes)
    throw std::invalid_argument(where + "in and out overlap: the transforms are out of place");
}

// Complex arithmetic on float2 (x: real, y: imaginary). Plain float operations: the compiler fuses
// the products and sums of cmul into FMAs, which round once and so are more accurate, never less.
__device__ __forceinline__ float2 cadd(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ float2 csub(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
__device__ __forceinline__ float2 cmul(float2 a, float2 b) { return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
// a * (-i): a quarter turn clockwise, with no multiplication at all.
__device__ __forceinline__ float2 times_minus_i(float2 a) { return make_float2(a.y, -a.x); }

// exp(-2 pi i k / n), the twiddle factor W_n^k. sincospif takes the angle in units of pi, so k / n
// (small integers, n a power of two) is exact and the result is correctly rounded or nearly so.
__device__ __forceinline__ float2 twiddle(int k, int n) {
  float s, c;
  sincospif(-2.0f * float(k) / float(n), &s, &c);
  return make_float2(c, s);
}

}  // namespace fft_lab
