// Mutant: the naive coalesced kernel that starts each sum from what C already holds instead of from
// zero, so a second call returns 2 A B, a third 3 A B. Right on a zeroed C, once. The grader fills C
// with NaN before each check, and checks it again after the many timed calls.
#include "every_step.h"
#include "workbook/launch.cuh"

namespace sgemm_mutant {

namespace {
__global__ void sgemm_accumulating_kernel(const float* __restrict__ a, const float* __restrict__ b, float* c, int m,
                                          int n, int k) {
  const int j = blockIdx.x * 32 + threadIdx.x, i = blockIdx.y * 8 + threadIdx.y;
  if (i >= m || j >= n) return;
  float sum = c[std::size_t(i) * n + j];  // the defect: the accumulator is not reset
  for (int kk = 0; kk < k; ++kk) sum = fmaf(a[std::size_t(i) * k + kk], b[std::size_t(kk) * n + j], sum);
  c[std::size_t(i) * n + j] = sum;
}
}  // namespace

void wrong_gemm(const sgemm_lab::GemmProblem& p, cudaStream_t stream) {
  if (p.m <= 0 || p.n <= 0) return;
  const dim3 grid(workbook::ceil_div(p.n, 32), workbook::ceil_div(p.m, 8));
  workbook::launch(sgemm_accumulating_kernel, grid, dim3(32, 8), 0, stream, p.a, p.b, p.c, p.m, p.n, p.k);
}

}  // namespace sgemm_mutant
