// The CPU truth for lab 04_sgemm: C = A B in double precision, row by row, with the bound within
// which any correct single-precision result must lie. Plain C++, tested on the CPU (grader/tests).
#pragma once

#include <cmath>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <vector>

namespace sgemm_oracle {

// Row i of C = A B (A is m x k, B is k x n, row-major), in double precision, and for each element
// the two sizes of its terms A(i, kk) B(kk, j) that the tolerances scale with: the sum of their
// squares and the sum of their magnitudes.
struct Row {
  std::vector<double> value;
  std::vector<double> squares;
  std::vector<double> magnitude;
};

inline Row row_of_product(std::span<const float> a, std::span<const float> b, int m, int n, int k, int i) {
  if (m < 0 || n < 0 || k < 0 || i < 0 || i >= m || a.size() != std::size_t(m) * k || b.size() != std::size_t(k) * n)
    throw std::invalid_argument("sgemm_oracle: the spans do not hold m x k and k x n floats, or i is not a row");
  Row row{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
  for (int kk = 0; kk < k; ++kk) {
    const double a_value = a[std::size_t(i) * k + kk];
    const float* b_row = b.data() + std::size_t(kk) * n;
    for (int j = 0; j < n; ++j) {
      const double term = a_value * static_cast<double>(b_row[j]);
      row.value[j] += term;
      row.squares[j] += term * term;
      row.magnitude[j] += std::fabs(term);
    }
  }
  return row;
}

// A tolerance for one element of C: |computed - exact| <= per_norm * sqrt(squares) + per_magnitude
// * magnitude, with `squares` and `magnitude` the element's sums of its terms' squares and
// magnitudes (Row). The device-side check takes the same two numbers.
struct Tolerance {
  double per_norm = 0;
  double per_magnitude = 0;
  double allowed(double squares, double magnitude) const {
    return per_norm * std::sqrt(squares) + per_magnitude * magnitude;
  }
};

// The FP32 tolerance, for the grader's inputs (independent, uniform in [-1, 1)): 16 u sqrt(k) times
// the 2-norm of the terms, u = 2^-24, plus the double-precision reference's own rounding.
// Why 16 u sqrt(k) ||terms||: summed one by one in FP32 (the worst order a kernel uses), the k
// rounding errors are each at most u times a partial sum, and the partial sums of random terms
// grow like sqrt(i) ||terms|| / sqrt(k), so the error has a standard deviation near
// u sqrt(k) ||terms|| / 2.45: the tolerance sits about 40 standard deviations out. Blocked,
// split-k and pairwise orders have smaller partial sums, so smaller errors.
// Why not looser: rounding A and B to TF32 or FP16 (10 bits, u = 2^-11) moves each term by about
// 2^-11 |term| in a random direction, an error near 0.8 * 2^-11 ||terms|| that no order cancels: 420
// / sqrt(k) times this tolerance, 6.5 times at k = 4096. BF16 (u = 2^-8) is 8 times worse, and
// rounding the partial sums instead is worse still. grader/tests/test_tolerance.cpp checks both
// directions on the CPU, for every order and every narrowing above.
inline Tolerance fp32_tolerance(int k) {
  if (k < 0) throw std::invalid_argument("sgemm_oracle: k must not be negative");
  return {16.0 * std::ldexp(1.0, -24) * std::sqrt(double(k)), k * std::ldexp(1.0, -53)};
}

// The worst-case error bound of a dot product of length k summed in single precision in any
// order, with or without FMA (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., eq.
// 3.5): |computed - exact| <= gamma_k * sum |a b|, gamma_k = k u / (1 - k u), u = 2^-24. It holds
// for every input, adversarial ones included, and is the tolerance without the [precision] defence:
// on random inputs at k = 4096 it is some 200 times the real FP32 error, loose enough for TF32.
inline double error_bound(int k, double magnitude) {
  const double u = std::ldexp(1.0, -24);
  const double ku = k * u;
  if (ku >= 1.0) throw std::invalid_argument("sgemm_oracle: k is too large for the bound");
  return ku / (1.0 - ku) * magnitude;
}

inline Tolerance worst_case_tolerance(int k) {
  return {0.0, error_bound(k, 1.0) + std::ldexp(1.0, -40)};  // 2^-40: the reference's own rounding, generously
}

}  // namespace sgemm_oracle
