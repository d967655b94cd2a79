// Synccheck mutant: the tile kernel with its barrier split across a warp: the even lanes of each
// warp wait at one __syncthreads() and the odd lanes at another. The hardware counts both as one
// barrier, so the product comes out right and the grader's checks pass; but a barrier in divergent
// code is undefined behaviour, and compute-sanitizer's synccheck reports it (the `sanitize` test).
#include "every_step.h"
#include "workbook/launch.cuh"

namespace sgemm_mutant {

namespace {
constexpr int kTile = 32;
constexpr int kOutputs = 8;
constexpr int kRowsPerPass = kTile / kOutputs;

__global__ void sgemm_divergent_barrier_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                               float* __restrict__ c, int m, int n, int k) {
  __shared__ float a_tile[kTile][kTile];
  __shared__ float b_tile[kTile][kTile];
  const int x = threadIdx.x, y = threadIdx.y;
  const int first_row = blockIdx.y * kTile, j = blockIdx.x * kTile + x;
  float sum[kOutputs] = {};
  for (int k0 = 0; k0 < k; k0 += kTile) {
    for (int r = 0; r < kOutputs; ++r) {
      const int row = y + r * kRowsPerPass;
      a_tile[row][x] = (first_row + row < m && k0 + x < k) ? a[std::size_t(first_row + row) * k + k0 + x] : 0.0f;
      b_tile[row][x] = (k0 + row < k && j < n) ? b[std::size_t(k0 + row) * n + j] : 0.0f;
    }
    if (x % 2 == 0) __syncthreads();  // the defect: two barriers, half a warp at each
    else __syncthreads();
    for (int kk = 0; kk < kTile; ++kk)
      for (int r = 0; r < kOutputs; ++r) sum[r] = fmaf(a_tile[y + r * kRowsPerPass][kk], b_tile[kk][x], sum[r]);
    __syncthreads();
  }
  for (int r = 0; r < kOutputs; ++r) {
    const int i = first_row + y + r * kRowsPerPass;
    if (i < m && j < n) c[std::size_t(i) * n + j] = sum[r];
  }
}
}  // namespace

void wrong_gemm(const sgemm_lab::GemmProblem& p, cudaStream_t stream) {
  if (p.m <= 0 || p.n <= 0) return;
  const dim3 grid(workbook::ceil_div(p.n, kTile), workbook::ceil_div(p.m, kTile));
  workbook::launch(sgemm_divergent_barrier_kernel, grid, dim3(kTile, kRowsPerPass), 0, stream, p.a, p.b, p.c, p.m, p.n, p.k);
}

}  // namespace sgemm_mutant
