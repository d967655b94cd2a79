// Narrowed floating-point formats, simulated on the CPU for the tolerance tests: a float rounded
// to the significand of TF32, FP16 or BF16 (the exponent range is not narrowed: the tests' values
// stay far inside FP16's).
#pragma once

#include <cstdint>
#include <cstring>

namespace narrowing {

// Rounds x to `bits` bits after the binary point of its significand, to nearest, ties away (TF32's
// cvt.rna) or to even (BF16, FP16): the narrowed formats' significands.
inline float round_to_bits(float x, int bits, bool ties_away) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  const int drop = 23 - bits;
  const std::uint32_t half = 1u << (drop - 1), mask = (1u << drop) - 1;
  const std::uint32_t rest = u & mask;
  u &= ~mask;
  if (rest > half || (rest == half && (ties_away || (u >> drop) & 1u))) u += 1u << drop;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

}  // namespace narrowing
