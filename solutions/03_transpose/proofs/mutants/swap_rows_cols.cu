// Mutant: the padded tile kernel with rows and cols swapped in the output's index math: it writes
// element (c, r) of out at c * cols + r instead of c * rows + r, as if out had the shape of in.
// Every square matrix comes out right; every non-square one (31 x 33, 1023 x 2049) does not.
#include "every_step.h"
#include "workbook/launch.cuh"

namespace transpose_mutant {

namespace {
constexpr int kTile = 32;
constexpr int kBlockRows = 8;

__global__ void transpose_swapped_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];
  const int in_col = blockIdx.x * kTile + threadIdx.x;
  const int in_row = blockIdx.y * kTile + threadIdx.y;
  for (int k = 0; k < kTile; k += kBlockRows)
    if (in_row + k < rows && in_col < cols) tile[threadIdx.y + k][threadIdx.x] = in[std::size_t(in_row + k) * cols + in_col];
  __syncthreads();
  const int out_col = blockIdx.y * kTile + threadIdx.x;
  const int out_row = blockIdx.x * kTile + threadIdx.y;
  for (int k = 0; k < kTile; k += kBlockRows)
    if (out_row + k < cols && out_col < rows)
      out[std::size_t(out_row + k) * cols + out_col] = tile[threadIdx.x][threadIdx.y + k];  // the defect: cols, not rows
}
}  // namespace

void wrong_transpose(const transpose_lab::TransposeProblem& p, cudaStream_t stream) {
  if (p.rows <= 0 || p.cols <= 0) return;
  const dim3 grid(workbook::ceil_div(p.cols, kTile), workbook::ceil_div(p.rows, kTile));
  workbook::launch(transpose_swapped_kernel, grid, dim3(kTile, kBlockRows), 0, stream, p.in, p.out, p.rows, p.cols);
}

}  // namespace transpose_mutant
