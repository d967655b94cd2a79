#include "baseline.h"

#include <stdexcept>

#include "workbook/launch.cuh"

namespace sgemm_baseline {

namespace {

constexpr int kBlockRows = 32;  // threadIdx.x: 32 neighbouring rows of C (and of A)
constexpr int kBlockCols = 8;

__global__ void sgemm_naive_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                   int m, int n, int k) {
  const int i = blockIdx.x * kBlockRows + threadIdx.x;
  const int j = blockIdx.y * kBlockCols + threadIdx.y;
  if (i >= m || j >= n) return;
  float sum = 0.0f;
  for (int kk = 0; kk < k; ++kk) sum = fmaf(a[std::size_t(i) * k + kk], b[std::size_t(kk) * n + j], sum);
  c[std::size_t(i) * n + j] = sum;
}

}  // namespace

void sgemm_naive(const sgemm_lab::GemmProblem& p, cudaStream_t stream) {
  if (p.m <= 0 || p.n <= 0) return;
  if (workbook::ceil_div(p.n, kBlockCols) > 65535) throw std::invalid_argument("sgemm_naive: n is too large");
  const dim3 grid(workbook::ceil_div(p.m, kBlockRows), workbook::ceil_div(p.n, kBlockCols));
  workbook::launch(sgemm_naive_kernel, grid, dim3(kBlockRows, kBlockCols), 0, stream, p.a, p.b, p.c, p.m, p.n, p.k);
}

}  // namespace sgemm_baseline
