// Mutant: the padded tile kernel launched on whole tiles only. The grid rounds rows / 32 and
// cols / 32 down, so when a dimension is not a multiple of 32 its last partial tile is never
// transposed. Right on 2048 x 2048; the grader catches it with 31 x 33, 1023 x 2049 and 4000^2.
#include "every_step.h"
#include "workbook/launch.cuh"

namespace transpose_mutant {

namespace {
constexpr int kTile = 32;
constexpr int kBlockRows = 8;

__global__ void transpose_whole_tiles_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];
  const int in_col = blockIdx.x * kTile + threadIdx.x;
  const int in_row = blockIdx.y * kTile + threadIdx.y;
  for (int k = 0; k < kTile; k += kBlockRows) tile[threadIdx.y + k][threadIdx.x] = in[std::size_t(in_row + k) * cols + in_col];
  __syncthreads();
  const int out_col = blockIdx.y * kTile + threadIdx.x;
  const int out_row = blockIdx.x * kTile + threadIdx.y;
  for (int k = 0; k < kTile; k += kBlockRows)
    out[std::size_t(out_row + k) * rows + out_col] = tile[threadIdx.x][threadIdx.y + k];
}
}  // namespace

void wrong_transpose(const transpose_lab::TransposeProblem& p, cudaStream_t stream) {
  const dim3 grid(p.cols / kTile, p.rows / kTile);  // the defect: rounds down
  if (grid.x == 0 || grid.y == 0) return;
  workbook::launch(transpose_whole_tiles_kernel, grid, dim3(kTile, kBlockRows), 0, stream, p.in, p.out, p.rows, p.cols);
}

}  // namespace transpose_mutant
