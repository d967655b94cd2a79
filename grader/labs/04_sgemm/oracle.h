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
// the sum of |A(i, kk) B(kk, j)| over kk, which scales the error bound.
struct Row {
  std::vector<double> value;
  std::vector<double> magnitude;
};

inline Row row_of_product(std::span<const float> a, std::span<const float> b, int m, int n, int k, int i) {
  if (m < 0 || n < 0 || k < 0 || i < 0 || i >= m || a.size() != std::size_t(m) * k || b.size() != std::size_t(k) * n)
    throw std::invalid_argument("sgemm_oracle: the spans do not hold m x k and k x n floats, or i is not a row");
  Row row{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
  for (int kk = 0; kk < k; ++kk) {
    const double a_value = a[std::size_t(i) * k + kk];
    const float* b_row = b.data() + std::size_t(kk) * n;
    for (int j = 0; j < n; ++j) {
      const double term = a_value * static_cast<double>(b_row[j]);
      row.value[j] += term;
      row.magnitude[j] += std::fabs(term);
    }
  }
  return row;
}

// The error bound of a dot product of length k summed in single precision in any order, with or
// without FMA (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., eq. 3.5):
// |computed - exact| <= gamma_k * sum |a b|, gamma_k = k u / (1 - k u), u = 2^-24. It grows with k,
// it holds for every correct kernel whatever its order of summation, and it is far below what a
// missing term, a wrong index or TF32 arithmetic (u = 2^-11) produces on small k.
inline double error_bound(int k, double magnitude) {
  const double u = std::ldexp(1.0, -24);
  const double ku = k * u;
  if (ku >= 1.0) throw std::invalid_argument("sgemm_oracle: k is too large for the bound");
  return ku / (1.0 - ku) * magnitude;
}

}  // namespace sgemm_oracle
