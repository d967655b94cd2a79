#include "check.h"

#include "harness/device_check.cuh"

namespace sgemm_check {

namespace {

constexpr int kTile = 16;  // 16 x 16 elements of C per block, one per thread, k in steps of 16

// The product, the sum of the terms' squares and of their magnitudes, all in double precision,
// from 16 x 16 tiles of A and B drawn from their seeds into shared memory; then the element's verdict.
__global__ void count_outside_tolerance_kernel(std::uint64_t a_key, std::uint64_t b_key, const float* __restrict__ c,
                                               int m, int n, int k, double per_norm, double per_magnitude,
                                               workbook::DeviceMismatches* result) {
  __shared__ double a_tile[kTile][kTile];
  __shared__ double b_tile[kTile][kTile];
  const int i = blockIdx.y * kTile + threadIdx.y, j = blockIdx.x * kTile + threadIdx.x;
  double value = 0, squares = 0, magnitude = 0;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    const int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
    a_tile[threadIdx.y][threadIdx.x] =
        (i < m && ka < k) ? double(workbook::random_element(a_key, std::size_t(i) * k + ka)) : 0.0;
    b_tile[threadIdx.y][threadIdx.x] =
        (kb < k && j < n) ? double(workbook::random_element(b_key, std::size_t(kb) * n + j)) : 0.0;
    __syncthreads();
    for (int kk = 0; kk < kTile; ++kk) {
      const double term = a_tile[threadIdx.y][kk] * b_tile[kk][threadIdx.x];
      value += term;
      squares = fma(term, term, squares);
      magnitude += fabs(term);
    }
    __syncthreads();
  }
  if (i >= m || j >= n) return;
  const std::size_t e = std::size_t(i) * n + j;
  const double allowed = per_norm * sqrt(squares) + per_magnitude * magnitude;  // oracle.h's Tolerance::allowed
  if (!(fabs(double(c[e]) - value) <= allowed)) workbook::note_mismatch(result, e);
}

}  // namespace

void count_outside_tolerance(std::uint64_t a_seed, std::uint64_t b_seed, const float* c, int m, int n, int k,
                             sgemm_oracle::Tolerance tolerance, workbook::DeviceMismatches* result,
                             cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  const dim3 grid(workbook::ceil_div(n, kTile), workbook::ceil_div(m, kTile));
  count_outside_tolerance_kernel<<<grid, dim3(kTile, kTile), 0, stream>>>(
      workbook::random_key(a_seed), workbook::random_key(b_seed), c, m, n, k, tolerance.per_norm,
      tolerance.per_magnitude, result);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace sgemm_check
