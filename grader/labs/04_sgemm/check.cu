#include "check.h"

#include "harness/device_check.cuh"

namespace sgemm_check {

namespace {

// Each block checks a 64 x 64 tile of C: its 16 x 16 threads hold 4 x 4 elements each, k in steps of
// 16. Each element's sums are taken term by term in k's order, as with one thread per element; but
// a thread's 16 elements share the 8 values it reads from shared memory for each k, where one
// element a thread read 2 for each: the check runs after every timed call.
constexpr int kThreads = 16;                  // per side of a block
constexpr int kPerThread = 4;                 // elements per side of a thread's block of C
constexpr int kTile = kThreads * kPerThread;  // elements per side of a block's tile of C
constexpr int kDepth = 16;                    // k per step
constexpr int kBlockThreads = kThreads * kThreads;

// The product, the sum of the terms' squares and of their magnitudes, all in double precision,
// from 64 x 16 and 16 x 64 tiles of A and B drawn from their seeds into shared memory; then each
// element's verdict.
__global__ void __launch_bounds__(kBlockThreads)
    count_outside_tolerance_kernel(std::uint64_t a_key, std::uint64_t b_key, const float* __restrict__ c, int m, int n,
                                   int k, double per_norm, double per_magnitude, workbook::DeviceMismatches* result) {
  __shared__ double a_tile[kTile][kDepth];
  __shared__ double b_tile[kDepth][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y, thread = ty * kThreads + tx;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  // A thread's elements: rows ty, ty + 16, ... and columns tx, tx + 16, ... of the tile.
  double value[kPerThread][kPerThread] = {}, squares[kPerThread][kPerThread] = {},
         magnitude[kPerThread][kPerThread] = {};
  for (int k0 = 0; k0 < k; k0 += kDepth) {
    for (int e = thread; e < kTile * kDepth; e += kBlockThreads) {
      const int r = e / kDepth, ka = k0 + e % kDepth;  // A's tile, row by row
      const int i = row0 + r;
      a_tile[r][e % kDepth] =
          (i < m && ka < k) ? double(workbook::random_element(a_key, std::size_t(i) * k + ka)) : 0.0;
      const int kb = k0 + e / kTile, j = col0 + e % kTile;  // B's tile, row by row
      b_tile[e / kTile][e % kTile] =
          (kb < k && j < n) ? double(workbook::random_element(b_key, std::size_t(kb) * n + j)) : 0.0;
    }
    __syncthreads();
    for (int kk = 0; kk < kDepth; ++kk) {
      double a[kPerThread], b[kPerThread];
      for (int r = 0; r < kPerThread; ++r) a[r] = a_tile[ty + r * kThreads][kk];
      for (int s = 0; s < kPerThread; ++s) b[s] = b_tile[kk][tx + s * kThreads];
      for (int r = 0; r < kPerThread; ++r)
        for (int s = 0; s < kPerThread; ++s) {
          const double term = a[r] * b[s];
          value[r][s] += term;
          squares[r][s] = fma(term, term, squares[r][s]);
          magnitude[r][s] += fabs(term);
        }
    }
    __syncthreads();
  }
  for (int r = 0; r < kPerThread; ++r)
    for (int s = 0; s < kPerThread; ++s) {
      const int i = row0 + ty + r * kThreads, j = col0 + tx + s * kThreads;
      if (i >= m || j >= n) continue;
      const std::size_t e = std::size_t(i) * n + j;
      const double allowed = per_norm * sqrt(squares[r][s]) + per_magnitude * magnitude[r][s];  // Tolerance::allowed
      if (!(fabs(double(c[e]) - value[r][s]) <= allowed)) workbook::note_mismatch(result, e);
    }
}

}  // namespace

void count_outside_tolerance(std::uint64_t a_seed, std::uint64_t b_seed, const float* c, int m, int n, int k,
                             sgemm_oracle::Tolerance tolerance, workbook::DeviceMismatches* result,
                             cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  const dim3 grid(workbook::ceil_div(n, kTile), workbook::ceil_div(m, kTile));
  count_outside_tolerance_kernel<<<grid, dim3(kThreads, kThreads), 0, stream>>>(
      workbook::random_key(a_seed), workbook::random_key(b_seed), c, m, n, k, tolerance.per_norm,
      tolerance.per_magnitude, result);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace sgemm_check
