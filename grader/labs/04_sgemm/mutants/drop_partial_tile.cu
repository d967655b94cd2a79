// Mutant: 04.5's tile kernel whose loop over k stops at the last whole tile. When k is not a
// multiple of 32, the last k % 32 terms of every sum are missing: no NaN, no crash, every element a
// little wrong. The grader catches it with k = 17, 129, 1027, 4093, where the missing terms are far
// larger than the error bound.
#include "every_step.h"
#include "workbook/launch.cuh"

namespace sgemm_mutant {

namespace {
constexpr int kTile = 32;
constexpr int kOutputs = 8;
constexpr int kRowsPerPass = kTile / kOutputs;

__global__ void sgemm_whole_k_tiles_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                           float* __restrict__ c, int m, int n, int k) {
  __shared__ float a_tile[kTile][kTile];
  __shared__ float b_tile[kTile][kTile];
  const int x = threadIdx.x, y = threadIdx.y;
  const int first_row = blockIdx.y * kTile, j = blockIdx.x * kTile + x;
  float sum[kOutputs] = {};
  for (int k0 = 0; k0 + kTile <= k; k0 += kTile) {  // the defect: the partial last tile is dropped
    for (int r = 0; r < kOutputs; ++r) {
      const int row = y + r * kRowsPerPass;
      a_tile[row][x] = first_row + row < m ? a[std::size_t(first_row + row) * k + k0 + x] : 0.0f;
      b_tile[row][x] = j < n ? b[std::size_t(k0 + row) * n + j] : 0.0f;
    }
    __syncthreads();
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
  workbook::launch(sgemm_whole_k_tiles_kernel, grid, dim3(kTile, kRowsPerPass), 0, stream, p.a, p.b, p.c, p.m, p.n, p.k);
}

}  // namespace sgemm_mutant
