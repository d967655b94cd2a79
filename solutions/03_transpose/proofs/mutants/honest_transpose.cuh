// The honest part of lab 03's defence mutants: 03.2's padded 32 x 32 tile transpose, which clears
// the bars of 03.1 and 03.2. Each mutant's defect is in how it launches this kernel (which stream,
// which tiles), never in the kernel.
#pragma once

#include "transpose.h"
#include "workbook/launch.cuh"

namespace transpose_mutant {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;

// Transposes tile rows [first_tile_row, gridDim.y + first_tile_row) of the input.
__global__ void honest_transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols,
                                        int first_tile_row) {
  __shared__ float tile[kTile][kTile + 1];
  const int tile_row = blockIdx.y + first_tile_row;
  const int in_col = blockIdx.x * kTile + threadIdx.x;
  const int in_row = tile_row * kTile + threadIdx.y;
  for (int k = 0; k < kTile; k += kBlockRows)
    if (in_row + k < rows && in_col < cols) tile[threadIdx.y + k][threadIdx.x] = in[std::size_t(in_row + k) * cols + in_col];
  __syncthreads();
  const int out_col = tile_row * kTile + threadIdx.x;
  const int out_row = blockIdx.x * kTile + threadIdx.y;
  for (int k = 0; k < kTile; k += kBlockRows)
    if (out_row + k < cols && out_col < rows) out[std::size_t(out_row + k) * rows + out_col] = tile[threadIdx.x][threadIdx.y + k];
}

// The tile rows [first, first + count) of p, on `stream`, through workbook::launch.
inline void honest_transpose(const transpose_lab::TransposeProblem& p, int first, int count, cudaStream_t stream) {
  if (p.rows <= 0 || p.cols <= 0 || count <= 0) return;
  const dim3 grid(workbook::ceil_div(p.cols, kTile), count);
  workbook::launch(honest_transpose_kernel, grid, dim3(kTile, kBlockRows), 0, stream, p.in, p.out, p.rows, p.cols, first);
}

inline int tile_rows(const transpose_lab::TransposeProblem& p) { return workbook::ceil_div(p.rows, kTile); }

}  // namespace transpose_mutant
