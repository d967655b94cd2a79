// Lab 03_transpose, reference solution: a transpose at the speed of a copy.
//
// A transpose does no arithmetic: it reads every float once and writes it once, exactly what a
// copy does, so a copy of the same bytes is its speed of light. The naive kernel (the grader's
// baseline) reads rows and writes columns: each warp's store touches 32 rows of the output, 4 bytes
// in each. Every step removes one reason the transpose falls short of the copy:
//   03.1  stage a tile in shared memory, so that both the loads and the stores run along rows
//   03.2  pad the tile by one column, so that reading a column of it hits 32 different banks
//   03.3  visit the tiles in diagonal order (the fix for partition camping on older GPUs; on the
//         H100 it measures slower, and the handout says why)
//   03.4  wider tiles moved as float4 when every row starts on a 32-byte sector, the blocks in
//         strips so that those running at once write long runs of the output's rows; when rows do
//         not start on sectors, windows of each output row that start on its sector boundaries, so
//         that no sector of the output is ever written in parts by two blocks
// Steps 03.1 to 03.3 are one template, transpose_tile_kernel<kPadding, kOrder>: the lesson is in
// its two parameters.

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

struct CopySpeedPolicy {
  // The aligned path: 64 x 64 tiles, each thread moving float4s, 16 by 16 threads (16 by 8, with
  // twice the float4 per thread, measured 1.5% slower on an H200: NOTES.md).
  static constexpr int kVectorTile = 64;
  static constexpr int kVectorWidth = 4;
  static constexpr int kVectorThreadsX = kVectorTile / kVectorWidth;
  static constexpr int kVectorThreadsY = 16;
  // Consecutive blocks walk down strips this many tiles wide (strip_tile()).
  static constexpr unsigned kStripTiles = 8;
  // The sector-aligned path: each block writes kWindow floats of kWindowRows output rows.
  static constexpr int kSectorFloats = 8;  // an L2 sector is 32 bytes
  static constexpr int kWindowRows = 32;   // output rows per block, one per warp lane when loading
  static constexpr int kWindow = 64;       // floats of each output row per block
  static constexpr int kWindowThreadsY = 8;
  static_assert(kVectorTile % kVectorThreadsY == 0, "every thread must move the same number of float4");
  static_assert(kVectorThreadsX * kVectorWidth == kVectorTile, "one row of threads moves one whole tile row");
  static_assert(kWindow % 32 == 0 && kWindow % kSectorFloats == 0,
                "a window is whole sectors, stored by whole warps");
  static_assert(kWindowRows == 32, "one warp loads one staged row: 32 input columns");
  static_assert((kWindow + kSectorFloats) % kWindowThreadsY == 0, "the staged rows must split evenly");
  static_assert(kSectorFloats <= kSpareRows, "given.cuh's kMaxRows leaves room for the extra row of windows");
};

constexpr int kTile = TilePolicy::kTile;
constexpr int kBlockRows = TilePolicy::kBlockRows;

// The classic diagonal order (Ruetsch and Micikevicius, 2009): number the blocks in launch order,
// b = x + grid_x * y, and send consecutive blocks down the tile rows, each launch row of blocks
// shifted one tile column further. Blocks that run at the same time then write to different tile
// columns of the output, so on a GPU that maps addresses to memory partitions in plain stripes
// their writes spread over the partitions instead of queueing at one. It is a bijection for any
// grid: for each tile row y, b / grid_y runs over every column once.
__host__ __device__ inline Tile diagonal_tile(unsigned block_x, unsigned block_y, unsigned grid_x, unsigned grid_y) {
  const unsigned b = block_x + grid_x * block_y;
  Tile tile;
  tile.y = b % grid_y;
  tile.x = (b / grid_y + tile.y) % grid_x;
  return tile;
}

// 03.4's order: number the blocks in launch order, b = x + grid_x * y, and send consecutive blocks
// down strips kStripTiles tiles wide (the last strip narrower when grid_x is no multiple). The
// thousand-odd blocks resident at once then cover a strip of the input 512 columns wide and all its
// rows, and so write 512 output rows from end to end, instead of covering 8 whole rows of tiles and
// writing every output row in a piece of 2 KiB. Device memory takes long runs of writes better than
// scattered ones (and scattered reads better than scattered writes): on an H200 the order lifts the
// transpose from 95.0% to 96.5% of a copy (NOTES.md). A bijection: each strip's tiles, row by row.
__host__ __device__ inline Tile strip_tile(unsigned block_x, unsigned block_y, unsigned grid_x, unsigned grid_y) {
  constexpr unsigned kWidth = CopySpeedPolicy::kStripTiles;
  const unsigned b = block_x + grid_x * block_y;
  const unsigned full_strips = grid_x / kWidth, in_full_strips = full_strips * kWidth * grid_y;
  const unsigned strip = b < in_full_strips ? b / (kWidth * grid_y) : full_strips;
  const unsigned width = b < in_full_strips ? kWidth : grid_x - full_strips * kWidth;
  const unsigned i = b - strip * kWidth * grid_y;  // the block's place in its strip
  return Tile{strip * kWidth + i % width, i / width};
}

enum class BlockOrder { kRowMajor, kDiagonal };

// 03.1 to 03.3. A block moves one 32 x 32 tile: its 32 x 8 threads read the tile's rows (each warp
// one 128-byte row, coalesced) into shared memory, wait for the whole tile, then read the tile's
// columns and write them as rows of the output (coalesced again). The transpose happens in shared
// memory, where reading a column costs no more than reading a row, unless the column's 32 floats
// share a bank: with a pitch of 32 floats they all do, and the 32 reads are served one at a time.
// A pitch of 33 (kPadding = 1) moves each row one bank further, so a column touches all 32 banks.
template <int kPadding, BlockOrder kOrder>
__global__ void transpose_tile_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + kPadding];
  const Tile t = kOrder == BlockOrder::kDiagonal ? diagonal_tile(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y)
                                                 : Tile{blockIdx.x, blockIdx.y};
  // in: rows t.y * 32 + threadIdx.y + k, column t.x * 32 + threadIdx.x
  const int in_col = t.x * kTile + threadIdx.x;
  const int in_row = t.y * kTile + threadIdx.y;
#pragma unroll
  for (int k = 0; k < kTile; k += kBlockRows)
    if (in_row + k < rows && in_col < cols) tile[threadIdx.y + k][threadIdx.x] = in[at(in_row + k, in_col, cols)];

  __syncthreads();  // the stores below read floats that other warps loaded

  // out: rows t.x * 32 + threadIdx.y + k (input columns), column t.y * 32 + threadIdx.x (an input row)
  const int out_col = t.y * kTile + threadIdx.x;
  const int out_row = t.x * kTile + threadIdx.y;
#pragma unroll
  for (int k = 0; k < kTile; k += kBlockRows)
    if (out_row + k < cols && out_col < rows) out[at(out_row + k, out_col, rows)] = tile[threadIdx.x][threadIdx.y + k];
}

template <int kPadding, BlockOrder kOrder>
void launch_tile_kernel(const TransposeProblem& p, cudaStream_t stream) {
  const dim3 grid(workbook::ceil_div(p.cols, kTile), workbook::ceil_div(p.rows, kTile));
  workbook::launch(transpose_tile_kernel<kPadding, kOrder>, grid, dim3(kTile, kBlockRows), 0, stream, p.in, p.out,
                   p.rows, p.cols);
}

// 03.4, when every row of in and of out starts on a 32-byte sector (rows and cols multiples of 8,
// 32-byte aligned pointers). The tile is 64 x 64 and every global access is a float4: each warp
// instruction moves 512 bytes instead of 128, each thread has four 16-byte loads in flight, and
// each block writes 256 contiguous bytes to every output row it touches.
__global__ void transpose_float4_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  using P = CopySpeedPolicy;
  __shared__ float tile[P::kVectorTile][P::kVectorTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const Tile t = strip_tile(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y);
  // in: rows t.y * 64 + ty + k, columns t.x * 64 + 4 * tx ... + 3
  const int in_col = t.x * P::kVectorTile + P::kVectorWidth * tx;
  const int in_row = t.y * P::kVectorTile + ty;
#pragma unroll
  for (int k = 0; k < P::kVectorTile; k += P::kVectorThreadsY) {
    // cols is a multiple of 8, so a float4 that starts inside the matrix ends inside it.
    if (in_row + k < rows && in_col < cols) {
      const float4 v = *reinterpret_cast<const float4*>(in + at(in_row + k, in_col, cols));
      tile[ty + k][4 * tx + 0] = v.x;
      tile[ty + k][4 * tx + 1] = v.y;
      tile[ty + k][4 * tx + 2] = v.z;
      tile[ty + k][4 * tx + 3] = v.w;
    }
  }
  __syncthreads();
  // out: rows t.x * 64 + ty + k, columns t.y * 64 + 4 * tx ... + 3
  const int out_col = t.y * P::kVectorTile + P::kVectorWidth * tx;
  const int out_row = t.x * P::kVectorTile + ty;
#pragma unroll
  for (int k = 0; k < P::kVectorTile; k += P::kVectorThreadsY) {
    if (out_row + k < cols && out_col < rows) {
      const int c = ty + k;  // the tile column that becomes this output row
      const float4 v = make_float4(tile[4 * tx + 0][c], tile[4 * tx + 1][c], tile[4 * tx + 2][c], tile[4 * tx + 3][c]);
      *reinterpret_cast<float4*>(out + at(out_row + k, out_col, rows)) = v;
    }
  }
}

// 03.4 for every other shape. When rows is odd, output row j starts j * rows floats into out:
// anywhere inside a 32-byte sector. A 32 x 32 tile then writes the first and last sector of each of
// its 128-byte row pieces only in part, the neighbouring tile writes the rest much later, and on the
// H100 that costs a third of the bandwidth (8191 x 8191: 60% of a copy, against 93% at 8192).
// So each block writes whole sectors: a window of kWindow floats of each of its kWindowRows output
// rows, shifted to start where that row's first sector boundary falls. The shift differs from row
// to row (at most 7 floats), so the block stages the kWindow + 8 input rows that any of its windows
// can need; the 8 extra rows are read by the neighbouring block too, and come from the L2.
__global__ void transpose_sector_aligned_kernel(const float* __restrict__ in, float* __restrict__ out, int rows,
                                                int cols) {
  using P = CopySpeedPolicy;
  constexpr int kStaged = P::kWindow + P::kSectorFloats;
  __shared__ float tile[kStaged][P::kWindowRows + 1];
  const int first_col = blockIdx.x * P::kWindowRows;                    // input column = output row
  const int first_row = blockIdx.y * P::kWindow - P::kSectorFloats;     // staged input row 0 (may be < 0)
  const int in_col = first_col + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kStaged; k += P::kWindowThreadsY) {
    const int r = first_row + k + threadIdx.y;
    if (r >= 0 && r < rows && in_col < cols) tile[k + threadIdx.y][threadIdx.x] = in[at(r, in_col, cols)];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < P::kWindowRows; k += P::kWindowThreadsY) {
    const int j = first_col + k + threadIdx.y;  // the output row this warp writes
    if (j >= cols) break;
    float* const row = out + at(j, 0, rows);
    // Floats from the row's start to its first sector boundary: the window starts there.
    const int lead = (P::kSectorFloats - int(reinterpret_cast<std::uintptr_t>(row) / sizeof(float) % P::kSectorFloats)) %
                     P::kSectorFloats;
#pragma unroll
    for (int x = lead + threadIdx.x; x < lead + P::kWindow; x += 32) {
      const int i = first_row + x;  // output column = input row
      if (i >= 0 && i < rows) row[i] = tile[x][k + threadIdx.y];
    }
  }
}

}  // namespace

void transpose_tiled(const TransposeProblem& problem, cudaStream_t stream) {
  if (!validate(problem, "transpose_tiled")) return;
  launch_tile_kernel<0, BlockOrder::kRowMajor>(problem, stream);
}

void transpose_padded(const TransposeProblem& problem, cudaStream_t stream) {
  if (!validate(problem, "transpose_padded")) return;
  launch_tile_kernel<1, BlockOrder::kRowMajor>(problem, stream);
}

Tile diagonal_tile_on_host(unsigned block_x, unsigned block_y, unsigned grid_x, unsigned grid_y) {
  if (block_x >= grid_x || block_y >= grid_y)
    throw std::invalid_argument("diagonal_tile_on_host: block (" + std::to_string(block_x) + ", " + std::to_string(block_y) +
                                ") is outside a " + std::to_string(grid_x) + " x " + std::to_string(grid_y) + " grid");
  return diagonal_tile(block_x, block_y, grid_x, grid_y);
}

void transpose_diagonal(const TransposeProblem& problem, cudaStream_t stream) {
  if (!validate(problem, "transpose_diagonal")) return;
  launch_tile_kernel<1, BlockOrder::kDiagonal>(problem, stream);
}

void transpose_at_copy_speed(const TransposeProblem& p, cudaStream_t stream) {
  if (!validate(p, "transpose_at_copy_speed")) return;
  using P = CopySpeedPolicy;
  constexpr std::uintptr_t kSectorBytes = P::kSectorFloats * sizeof(float);
  const bool rows_start_on_sectors = p.rows % P::kSectorFloats == 0 && p.cols % P::kSectorFloats == 0 &&
                                     reinterpret_cast<std::uintptr_t>(p.in) % kSectorBytes == 0 &&
                                     reinterpret_cast<std::uintptr_t>(p.out) % kSectorBytes == 0;
  if (rows_start_on_sectors) {
    const dim3 grid(workbook::ceil_div(p.cols, P::kVectorTile), workbook::ceil_div(p.rows, P::kVectorTile));
    workbook::launch(transpose_float4_kernel, grid, dim3(P::kVectorThreadsX, P::kVectorThreadsY), 0, stream, p.in,
                     p.out, p.rows, p.cols);
  } else {
    // One more row of blocks than rows / kWindow: the first window of a row may start up to 8
    // floats before it, so the windows reach 8 floats further than the rows do.
    const dim3 grid(workbook::ceil_div(p.cols, P::kWindowRows), workbook::ceil_div(p.rows + P::kSectorFloats, P::kWindow));
    workbook::launch(transpose_sector_aligned_kernel, grid, dim3(32, P::kWindowThreadsY), 0, stream, p.in, p.out,
                     p.rows, p.cols);
  }
}

}  // namespace transpose_lab
