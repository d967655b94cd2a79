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

// TODO(03.1): write transpose_tile_kernel. A block of 32 x 8 threads moves one 32 x 32 tile: tile
// column blockIdx.x, tile row blockIdx.y. Each thread loads four floats of the tile, at rows
// threadIdx.y, threadIdx.y + 8, ... and column threadIdx.x (so that each warp reads one 128-byte
// row of `in`), into `__shared__ float tile[32][32]`. Then the whole block waits for the whole
// tile, and each thread writes four floats of the output, again along rows: output row
// (input column) blockIdx.x * 32 + threadIdx.y + k takes tile[threadIdx.x][threadIdx.y + k].
// Guard every load and store against rows and cols: the last tiles of a row or a column are partial.
//
// TODO(03.2): measure 03.1 first (the handout's table). Reading a column of a 32 x 32 tile puts all
// 32 floats in one shared-memory bank. Give each tile row one more float than it needs. One template
// parameter (the padding) serves both steps.
//
// TODO(03.3): write diagonal_tile() below, then use it in the kernel instead of (blockIdx.x,
// blockIdx.y) to pick the tile (a second template parameter: the block order). The handout gives
// the formula and asks you to measure whether it helps.
//
// TODO(03.4): your design. Use the diagnostic kernels and the bench to find where the padded kernel
// loses time, at 8192 x 8192 and at 8191 x 8191 (the grader measures both).

// TODO(03.3): the tile that block (block_x, block_y) of a grid_x by grid_y grid moves, in diagonal
// order. __host__ __device__, so that the kernel and the grader's CPU check use the same code.
__host__ __device__ inline Tile diagonal_tile(unsigned, unsigned, unsigned, unsigned) { return Tile{}; }

[[noreturn]] void not_implemented(const char* todo, const char* step) {
  throw workbook::NotImplemented(std::string(todo) + " not implemented: " + step + " (labs/03_transpose/transpose.cu)");
}

}  // namespace

// Each launcher: validate (return when there is nothing to do), size the grid so that partial tiles
// are covered (workbook::ceil_div), and launch, for 03.1 to 03.3, with
// workbook::launch(kernel, grid, dim3(32, 8), 0, stream, problem.in, problem.out, problem.rows, problem.cols)
// (03.4's kernels take the block and arguments its handout paragraph gives them). Name the launcher's
// cudaStream_t parameter (stream) to pass it on.

void transpose_tiled(const TransposeProblem& problem, cudaStream_t) {
  if (!validate(problem, "transpose_tiled")) return;
  not_implemented("TODO(03.1)", "transpose_tiled");
}

void transpose_padded(const TransposeProblem& problem, cudaStream_t) {
  if (!validate(problem, "transpose_padded")) return;
  not_implemented("TODO(03.2)", "transpose_padded");
}

// Given: checks its arguments, then asks diagonal_tile(). Remove the line marked TODO when you
// have written diagonal_tile().
Tile diagonal_tile_on_host(unsigned block_x, unsigned block_y, unsigned grid_x, unsigned grid_y) {
  if (block_x >= grid_x || block_y >= grid_y)
    throw std::invalid_argument("diagonal_tile_on_host: block (" + std::to_string(block_x) + ", " + std::to_string(block_y) +
                                ") is outside a " + std::to_string(grid_x) + " x " + std::to_string(grid_y) + " grid");
  not_implemented("TODO(03.3)", "diagonal_tile");  // TODO(03.3): remove this line
  return diagonal_tile(block_x, block_y, grid_x, grid_y);
}

void transpose_diagonal(const TransposeProblem& problem, cudaStream_t) {
  if (!validate(problem, "transpose_diagonal")) return;
  not_implemented("TODO(03.3)", "transpose_diagonal");
}

void transpose_at_copy_speed(const TransposeProblem& problem, cudaStream_t) {
  if (!validate(problem, "transpose_at_copy_speed")) return;
  not_implemented("TODO(03.4)", "transpose_at_copy_speed");
}

}  // namespace transpose_lab
