// Mutant: 04.5's tile kernel (8 outputs per thread, 32 x 4 threads) without the __syncthreads()
// between loading the tiles and using them. Each warp loads 8 of the 32 rows of B's tile and then
// reads all 32: the other warps' rows may not be there yet. Wrong somewhere on most shapes, and
// compute-sanitizer's racecheck reports it every time (the `sanitize` test).
#include "every_step.h"
#include "workbook/launch.cuh"

namespace sgemm_mutant {

namespace {
constexpr int kTile = 32;
constexpr int kOutputs = 8;
constexpr int kRowsPerPass = kTile / kOutputs;

__global__ void sgemm_without_barrier_kernel(const float* __restrict__ a, const float* __restrict__ b,
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
    // The defect: no __syncthreads() here.
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
  workbook::launch(sgemm_without_barrier_kernel, grid, dim3(kTile, kRowsPerPass), 0, stream, p.a, p.b, p.c, p.m, p.n,
                   p.k);
}

}  // namespace sgemm_mutant
