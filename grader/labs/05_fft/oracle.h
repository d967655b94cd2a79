// The CPU truth for lab 05_fft: the 1024-point DFT in double precision, by its definition (for a
// few transforms) and by a radix-2 FFT (for many), with the bound within which any correct
// single-precision result must lie. Plain C++, tested on the CPU (grader/tests).
#pragma once

#include <cmath>
#include <complex>
#include <cstddef>
#include <numbers>
#include <span>
#include <stdexcept>
#include <vector>

namespace fft_oracle {

using Complex = std::complex<double>;
inline constexpr int kPoints = 1024;
inline constexpr int kLevels = 10;  // log2(kPoints)

// exp(-2 pi i k / n), from the exact fraction k / n: correct to double rounding.
inline Complex twiddle(long long k, long long n) {
  const double angle = -2.0 * std::numbers::pi * double(k % n) / double(n);
  return {std::cos(angle), std::sin(angle)};
}

// Transform `transform` of the grader's interleaved floats (real, imaginary, real, ...), as doubles.
inline std::vector<Complex> points_of(std::span<const float> interleaved, std::size_t transform) {
  if (interleaved.size() < (transform + 1) * 2 * kPoints) throw std::invalid_argument("fft_oracle: no such transform");
  std::vector<Complex> x(kPoints);
  for (int n = 0; n < kPoints; ++n)
    x[n] = {interleaved[(transform * kPoints + n) * 2], interleaved[(transform * kPoints + n) * 2 + 1]};
  return x;
}

// The definition: X[k] = sum_n x[n] W^{nk}, O(n^2). The check of fft() below.
inline std::vector<Complex> dft(std::span<const Complex> x) {
  const long long n = static_cast<long long>(x.size());
  std::vector<Complex> result(x.size());
  for (long long k = 0; k < n; ++k) {
    Complex sum = 0;
    for (long long m = 0; m < n; ++m) sum += x[m] * twiddle(m * k, n);
    result[k] = sum;
  }
  return result;
}

// Radix-2 decimation in time, any power-of-two length: bit-reversed copy, then log2(n) stages.
inline std::vector<Complex> fft(std::span<const Complex> x) {
  const std::size_t n = x.size();
  if (n == 0 || (n & (n - 1)) != 0) throw std::invalid_argument("fft_oracle: the length must be a power of two");
  int bits = 0;
  while ((std::size_t(1) << bits) < n) ++bits;
  std::vector<Complex> y(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t reversed = 0;
    for (int b = 0; b < bits; ++b) reversed |= ((i >> b) & 1) << (bits - 1 - b);
    y[reversed] = x[i];
  }
  for (std::size_t half = 1; half < n; half *= 2)
    for (std::size_t start = 0; start < n; start += 2 * half)
      for (std::size_t pos = 0; pos < half; ++pos) {
        const Complex a = y[start + pos], c = y[start + pos + half] * twiddle(pos, 2 * half);
        y[start + pos] = a + c;
        y[start + pos + half] = a - c;
      }
  return y;
}

// ||x||_2 of one transform's input: every output's error is measured against it.
inline double norm_of(std::span<const Complex> x) {
  double squares = 0;
  for (const Complex& v : x) squares += std::norm(v);
  return std::sqrt(squares);
}

// A tolerance for output k of one transform: |computed - exact| <= per_norm ||x||_2 + per_output
// |X[k]|, with ||x||_2 the 2-norm of the transform's input and X[k] the exact output.
struct Tolerance {
  double per_norm = 0;
  double per_output = 0;
  double allowed(double norm, double output_magnitude) const { return per_norm * norm + per_output * output_magnitude; }
};

// The FP32 tolerance: 16 log2(N) u (||x||_2 + |X[k]|), u = 2^-24.
// Why it accepts every honest FP32 kernel: each of the log2(N) levels of butterflies adds
// roundings of about u times the values passing through it. Where the values that make up X[k]
// add with unrelated phases (random inputs), those roundings add up like a random walk: a
// standard deviation near u sqrt(log2 N) ||x||_2 (a transform keeps the 2-norm, up to the scale
// the unnormalized butterflies carry), and the largest of the 2^26 outputs of a batch of 65536
// some 6 of those. Where they add in phase (a pure tone: all of the signal in one output), the
// roundings can add in phase too, up to about log2(N) u |X[k]|, and the values inside the passes
// grow in phase with them (the roundings of the other outputs grow alike). The tolerance is 16
// times the sum of the two; grader/tests/test_fft_tolerance.cpp measures radix-2, 4, 8 and 16
// kernels with exact twiddles or powers of one at under a third of it, random inputs and tones.
// Why not looser: one rounding of the input to FP16 or TF32 (u = 2^-11) moves every output by about
// 2^-11 ||x||_2 / sqrt(3), 30 times the tolerance on random inputs; BF16 is 8 times worse, and
// arithmetic in FP16 rounds at every level. A missing or wrongly signed twiddle, or outputs out of
// order, move the outputs by about ||x||_2 itself.
inline Tolerance fp32_tolerance() {
  const double bound = 16.0 * kLevels * std::ldexp(1.0, -24);
  return {bound + std::ldexp(1.0, -45), bound};  // 2^-45: the double-precision oracle's own rounding, generously
}

// The worst-case bound for a radix-2 FFT in floating point (Higham, Accuracy and Stability of
// Numerical Algorithms, 2nd ed., Theorem 24.2): ||computed - exact||_2 <= (L eta / (1 - L eta))
// ||X||_2 with L = log2(N), eta = mu + gamma_4 (sqrt(2) + mu), gamma_4 = 4u / (1 - 4u), mu the
// twiddles' error (taken as 16 u: sixteen products of a recurrence), and ||X||_2 = sqrt(N) ||x||_2.
// Every output's error is at most the whole error's 2-norm. It holds for any input, and is the
// tolerance without the [precision] defence: some 40 times the FP32 one on random inputs.
inline Tolerance worst_case_tolerance() {
  const double u = std::ldexp(1.0, -24), mu = 16 * u;
  const double gamma4 = 4 * u / (1 - 4 * u);
  const double eta = mu + gamma4 * (std::sqrt(2.0) + mu);
  const double level_eta = kLevels * eta;
  return {level_eta / (1 - level_eta) * std::sqrt(double(kPoints)), 0.0};
}

}  // namespace fft_oracle
