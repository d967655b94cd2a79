// Lab 03_transpose: a transpose at the speed of a copy. This is the file you edit.
//
// A transpose does no arithmetic: it reads every float once and writes it once, exactly what a
// copy does, so a copy of the same bytes is its speed of light. The naive kernel (the grader's
// baseline) reads rows and writes columns: each warp's store touches 32 rows of the output, 4 bytes
// in each. Every step removes one reason the transpose falls short of the copy;
// labs/03_transpose/README.md explains each one and the bar it must clear.
//   TODO(03.1)  stage a 32 x 32 tile in shared memory: loads and stores both along rows
//   TODO(03.2)  pad the tile by one column: no bank conflicts when reading its columns
//   TODO(03.3)  visit the tiles in diagonal order, and measure whether it still helps
//   TODO(03.4)  your design: close the remaining gap to the copy, odd sizes included
// The diagnostic kernels in diagnostics.cu (given) show where the time goes.
// Grade it with `./workbook grade 03_transpose`.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "given.cuh"  // given: validate(), kMaxRows, at()
#include "transpose.h"
#include "workbook/launch.cuh"

namespace transpose_lab {

namespace {

struct TilePolicy {
  static constexpr int kTile = 32;       // floats per tile side
  static constexpr int kBlockRows = 8;   // 32 x 8 threads: each thread moves kTile / kBlockRows rows
  static_assert(kTile == 32, "one warp moves one tile row: 32 floats, one whole 128-byte line");
  static_assert(kTile % kBlockRows == 0, "every thread must move the same number of rows");
};

// [[maybe_unused]] until your kernels use them: it keeps the compiler quiet about the starter.
[[maybe_unused]] constexpr int kTile = TilePolicy::kTile;
[[maybe_unused]] constexpr int kBlockRows = TilePolicy::kBlockRows;

// TODO(03.3): the tile that block (block_x, block_y) of a grid_x by grid_y grid moves, in diagonal
// order. __host__ __device__, so that the kernel and the grader's CPU check use the same code.
// With b the launch order, tile.y = b % grid_y and tile.x = (b / grid_y + tile.y) % grid_x.
__host__ __device__ inline Tile diagonal_tile(unsigned block_x, unsigned block_y, unsigned grid_x, unsigned grid_y) {
  const unsigned b = block_x + grid_x * block_y;  // launch order
  Tile tile;
  tile.y = b % grid_y;
  tile.x = (b / grid_y + tile.y) % grid_x;
  return tile;
}

// TODO(03.1), TODO(03.2), TODO(03.3): one kernel, two template parameters.
//   kPad      0: the plain 32 x 32 tile (03.1); 1: a [32][33] tile, each column in 32 banks (03.2).
//   kDiagonal false: tile (blockIdx.x, blockIdx.y); true: the diagonal order of diagonal_tile() (03.3).
// A block of 32 x 8 threads moves one 32 x 32 tile: each thread loads four floats of the tile along
// a row of `in` (a warp reads one 128-byte row piece), the block waits, and each thread stores four
// floats along a row of `out`, taken from a column of the tile.
template <int kPad, bool kDiagonal>
__global__ void transpose_tile_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + kPad];
  unsigned tile_x = blockIdx.x, tile_y = blockIdx.y;
  if constexpr (kDiagonal) {
    const Tile t = diagonal_tile(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y);
    tile_x = t.x;
    tile_y = t.y;
  }
  const int first_col = static_cast<int>(tile_x) * kTile;  // input columns = output rows
  const int first_row = static_cast<int>(tile_y) * kTile;  // input rows = output columns

  const int c = first_col + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kTile; k += kBlockRows) {
    const int r = first_row + threadIdx.y + k;
    if (r < rows && c < cols) tile[threadIdx.y + k][threadIdx.x] = in[at(r, c, cols)];
  }
  __syncthreads();
  const int out_c = first_row + threadIdx.x;  // an input row
#pragma unroll
  for (int k = 0; k < kTile; k += kBlockRows) {
    const int out_r = first_col + threadIdx.y + k;  // an input column
    if (out_r < cols && out_c < rows) out[at(out_r, out_c, rows)] = tile[threadIdx.x][threadIdx.y + k];
  }
}

// TODO(03.4), kernel 1 (every row of in and out starts on a 32-byte sector): 64 x 64 tiles moved
// with float4 loads and stores by 16 x 16 threads, four float4 per thread each way, through a padded
// [64][65] tile of floats. Blocks take their tiles down strips eight tiles wide (a 1-D grid): the
// blocks that run together read 2 KiB pieces of many input rows and write whole output rows.
constexpr int kWideTile = 64;
constexpr int kWideThreads = 16;          // 16 x 16 threads
constexpr int kStripTiles = 8;            // a strip is eight tiles wide
constexpr int kWideRowsPerThread = kWideTile / kWideThreads;  // 4 float4 per thread each way
static_assert(kWideTile == 4 * kWideThreads, "one float4 per thread covers a tile row");

__global__ void __launch_bounds__(kWideThreads * kWideThreads)
    transpose_wide_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols,
                          unsigned tiles_across, unsigned tiles_down) {
  __shared__ float tile[kWideTile][kWideTile + 1];
  // Block b takes the b-th tile of the strips, each strip read row by row; the last strip is
  // narrower when tiles_across is no multiple of eight.
  const unsigned b = blockIdx.x;
  const unsigned full_strip = kStripTiles * tiles_down;
  const unsigned strip = b / full_strip;
  const unsigned within = b - strip * full_strip;
  const unsigned strip_first = strip * kStripTiles;
  const unsigned width = min(static_cast<unsigned>(kStripTiles), tiles_across - strip_first);
  const unsigned tile_y = within / width;
  const unsigned tile_x = strip_first + within % width;

  const int first_col = static_cast<int>(tile_x) * kWideTile;
  const int first_row = static_cast<int>(tile_y) * kWideTile;
  const int tx = threadIdx.x, ty = threadIdx.y;

  // Load: row ty + 16 k of the tile, floats 4 tx .. 4 tx + 3 (cols is a multiple of 4 here).
  const int c = first_col + 4 * tx;
  float4 loaded[kWideRowsPerThread];
#pragma unroll
  for (int k = 0; k < kWideRowsPerThread; ++k) {
    const int r = first_row + ty + k * kWideThreads;
    loaded[k] = make_float4(0.f, 0.f, 0.f, 0.f);
    if (r < rows && c < cols) loaded[k] = *reinterpret_cast<const float4*>(in + at(r, c, cols));
  }
#pragma unroll
  for (int k = 0; k < kWideRowsPerThread; ++k) {
    const int r = ty + k * kWideThreads;
    tile[r][4 * tx + 0] = loaded[k].x;
    tile[r][4 * tx + 1] = loaded[k].y;
    tile[r][4 * tx + 2] = loaded[k].z;
    tile[r][4 * tx + 3] = loaded[k].w;
  }
  __syncthreads();
  // Store: output row first_col + ty + 16 k (an input column), floats first_row + 4 tx ... (input
  // rows), each float4 assembled from four floats of one tile column.
  const int out_c = first_row + 4 * tx;
#pragma unroll
  for (int k = 0; k < kWideRowsPerThread; ++k) {
    const int j = ty + k * kWideThreads;  // tile column
    const int out_r = first_col + j;
    if (out_r < cols && out_c < rows) {
      float4 v;
      v.x = tile[4 * tx + 0][j];
      v.y = tile[4 * tx + 1][j];
      v.z = tile[4 * tx + 2][j];
      v.w = tile[4 * tx + 3][j];
      *reinterpret_cast<float4*>(out + at(out_r, out_c, rows)) = v;
    }
  }
}

// TODO(03.4), kernel 2 (any shape, any 4-byte aligned pointers): whole 32-byte sectors written.
// A block of 32 x 8 threads takes 32 output rows (input columns first_col ...) and, of each, a window
// of 64 floats: nominally output columns first_row ... first_row + 63, shifted back to the last
// sector boundary of that output row at or before first_row (0 to 7 floats), so that each block's
// window ends where the next block's begins and every sector is written whole by one block. It
// stages the 72 input rows any of its windows can need (the 8 before first_row included).
constexpr int kWindow = 64;                 // floats of each output row a block writes
constexpr int kSectorFloats = 8;            // a 32-byte sector
constexpr int kStagedRows = kWindow + kSectorFloats;  // 72
static_assert(kStagedRows % kBlockRows == 0, "every warp stages the same number of rows");
static_assert(kWindow == 2 * kTile, "each lane writes two floats of a window");

__global__ void __launch_bounds__(kTile * kBlockRows)
    transpose_sector_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kStagedRows][kTile + 1];
  const int first_col = blockIdx.x * kTile;    // input columns = output rows
  const int first_row = blockIdx.y * kWindow;  // nominal first input row = output column
  const int staged_first = first_row - kSectorFloats;
  const int lane = threadIdx.x, warp = threadIdx.y;

  const int c = first_col + lane;
#pragma unroll
  for (int k = 0; k < kStagedRows; k += kBlockRows) {
    const int r = staged_first + warp + k;
    if (r >= 0 && r < rows && c < cols) tile[warp + k][lane] = in[at(r, c, cols)];
  }
  __syncthreads();
  // Where out sits inside its sector, in floats (out is 4-byte aligned).
  const unsigned out_phase = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(out) / sizeof(float));
#pragma unroll
  for (int jj = warp; jj < kTile; jj += kBlockRows) {
    const int out_r = first_col + jj;  // an input column
    if (out_r >= cols) break;          // the same for the whole warp
    const std::size_t row_start = at(out_r, 0, rows) + out_phase;
    const int shift = static_cast<int>((row_start + static_cast<std::size_t>(first_row)) % kSectorFloats);
    const int window_first = first_row - shift;
#pragma unroll
    for (int h = 0; h < kWindow; h += kTile) {
      const int out_c = window_first + h + lane;  // an input row
      if (out_c >= 0 && out_c < rows) out[at(out_r, out_c, rows)] = tile[out_c - staged_first][jj];
    }
  }
}

// The grid of the 32 x 32 tile kernels: partial tiles covered.
dim3 tile_grid(const TransposeProblem& p) {
  return dim3(static_cast<unsigned>(workbook::ceil_div(p.cols, kTile)), static_cast<unsigned>(workbook::ceil_div(p.rows, kTile)));
}

}  // namespace

// Each launcher: validate (return when there is nothing to do), size the grid so that partial tiles
// are covered (workbook::ceil_div), and launch with
// workbook::launch(kernel, grid, dim3(32, 8), 0, stream, problem.in, problem.out, problem.rows, problem.cols).

void transpose_tiled(const TransposeProblem& problem, cudaStream_t stream) {
  if (!validate(problem, "transpose_tiled")) return;
  workbook::launch(transpose_tile_kernel<0, false>, tile_grid(problem), dim3(kTile, kBlockRows), 0, stream, problem.in,
                   problem.out, problem.rows, problem.cols);
}

void transpose_padded(const TransposeProblem& problem, cudaStream_t stream) {
  if (!validate(problem, "transpose_padded")) return;
  workbook::launch(transpose_tile_kernel<1, false>, tile_grid(problem), dim3(kTile, kBlockRows), 0, stream, problem.in,
                   problem.out, problem.rows, problem.cols);
}

// Given: checks its arguments, then asks diagonal_tile(). Remove the line marked TODO when you
// have written diagonal_tile().
Tile diagonal_tile_on_host(unsigned block_x, unsigned block_y, unsigned grid_x, unsigned grid_y) {
  if (block_x >= grid_x || block_y >= grid_y)
    throw std::invalid_argument("diagonal_tile_on_host: block (" + std::to_string(block_x) + ", " + std::to_string(block_y) +
                                ") is outside a " + std::to_string(grid_x) + " x " + std::to_string(grid_y) + " grid");
  return diagonal_tile(block_x, block_y, grid_x, grid_y);
}

void transpose_diagonal(const TransposeProblem& problem, cudaStream_t stream) {
  if (!validate(problem, "transpose_diagonal")) return;
  workbook::launch(transpose_tile_kernel<1, true>, tile_grid(problem), dim3(kTile, kBlockRows), 0, stream, problem.in,
                   problem.out, problem.rows, problem.cols);
}

// TODO(03.4): the float4 kernel when every row of `in` and `out` starts on a 32-byte sector (rows
// and cols multiples of 8, both pointers 32-byte aligned), the sector-aligned kernel otherwise.
void transpose_at_copy_speed(const TransposeProblem& problem, cudaStream_t stream) {
  if (!validate(problem, "transpose_at_copy_speed")) return;
  const auto in_address = reinterpret_cast<std::uintptr_t>(problem.in);
  const auto out_address = reinterpret_cast<std::uintptr_t>(problem.out);
  const bool sector_rows = problem.rows % kSectorFloats == 0 && problem.cols % kSectorFloats == 0 &&
                           in_address % (kSectorFloats * sizeof(float)) == 0 &&
                           out_address % (kSectorFloats * sizeof(float)) == 0;
  if (sector_rows) {
    const unsigned tiles_across = static_cast<unsigned>(workbook::ceil_div(problem.cols, kWideTile));
    const unsigned tiles_down = static_cast<unsigned>(workbook::ceil_div(problem.rows, kWideTile));
    const unsigned blocks = tiles_across * tiles_down;
    workbook::launch(transpose_wide_kernel, dim3(blocks), dim3(kWideThreads, kWideThreads), 0, stream, problem.in,
                     problem.out, problem.rows, problem.cols, tiles_across, tiles_down);
  } else {
    // One row of blocks more than the rows need when the windows start before first_row: the last
    // window of each output row ends up to 7 floats short of its nominal end.
    const dim3 grid(static_cast<unsigned>(workbook::ceil_div(problem.cols, kTile)),
                    static_cast<unsigned>(workbook::ceil_div(problem.rows + kSectorFloats - 1, kWindow)));
    workbook::launch(transpose_sector_kernel, grid, dim3(kTile, kBlockRows), 0, stream, problem.in, problem.out,
                     problem.rows, problem.cols);
  }
}

}  // namespace transpose_lab
