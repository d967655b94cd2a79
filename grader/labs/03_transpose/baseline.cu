#include "baseline.h"

#include <stdexcept>

#include "workbook/launch.cuh"

namespace transpose_baseline {

namespace {

constexpr int kBlockCols = 32;  // a warp reads 32 neighbours of one input row
constexpr int kBlockRows = 8;

__global__ void transpose_naive_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const int c = blockIdx.x * kBlockCols + threadIdx.x;
  const int r = blockIdx.y * kBlockRows + threadIdx.y;
  if (r < rows && c < cols) out[std::size_t(c) * rows + r] = in[std::size_t(r) * cols + c];
}

}  // namespace

void transpose_naive(const transpose_lab::TransposeProblem& p, cudaStream_t stream) {
  if (p.rows <= 0 || p.cols <= 0) return;
  if (workbook::ceil_div(p.rows, kBlockRows) > 65535) throw std::invalid_argument("transpose_naive: too many rows");
  const dim3 grid(workbook::ceil_div(p.cols, kBlockCols), workbook::ceil_div(p.rows, kBlockRows));
  workbook::launch(transpose_naive_kernel, grid, dim3(kBlockCols, kBlockRows), 0, stream, p.in, p.out, p.rows, p.cols);
}

}  // namespace transpose_baseline
