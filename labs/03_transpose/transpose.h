// Lab 03_transpose: a transpose at the speed of a copy.
//
// The interface every implementation of the lab provides (the starter you edit, the reference
// solution, the grader's baseline and its mutants), so that one grader links against any of them.
// Plain C++: it compiles with the host compiler.
#pragma once

#include <cuda_runtime_api.h>

namespace transpose_lab {

// out = transpose(in). `in` has `rows` rows of `cols` floats, row-major: element (r, c) is at
// in[r * cols + c]. `out` has `cols` rows of `rows` floats: element (c, r) is at out[c * rows + r].
struct TransposeProblem {
  const float* in = nullptr;  // rows * cols floats, 4-byte aligned (the grader also passes offsets)
  float* out = nullptr;       // rows * cols floats, 4-byte aligned, not overlapping `in`
  int rows = 0;               // any count from 0, not only multiples of a tile
  int cols = 0;
};

// One launcher per step of the handout. Each validates the problem, sizes the grid and launches
// through workbook::launch() (which the grader reads to report the kernel's resources).
void transpose_tiled(const TransposeProblem& problem, cudaStream_t stream);          // TODO(03.1)
void transpose_padded(const TransposeProblem& problem, cudaStream_t stream);         // TODO(03.2)
void transpose_diagonal(const TransposeProblem& problem, cudaStream_t stream);       // TODO(03.3)
void transpose_at_copy_speed(const TransposeProblem& problem, cudaStream_t stream);  // TODO(03.4)

// Which tile block (block_x, block_y) of a grid_x by grid_y grid transposes in 03.3's diagonal
// order. The grader checks it on the CPU; transpose_diagonal's kernel uses the same function.
struct Tile {
  unsigned x = 0;  // tile column: the block covers input columns x * 32 ...
  unsigned y = 0;  // tile row: input rows y * 32 ...
  bool operator==(const Tile&) const = default;
};
Tile diagonal_tile_on_host(unsigned block_x, unsigned block_y, unsigned grid_x, unsigned grid_y);  // TODO(03.3)

// The diagnostic kernels, given complete in labs/03_transpose/diagnostics.cu: the same 32 x 32 tiles
// and 32 x 8 threads as 03.2, each doing one part of a transpose's work, so that their speeds
// explain where a transpose loses time. `./workbook bench 03` times them beside the steps.
// They need rows and cols to be multiples of 32 and refuse other shapes.
void copy_plain(const TransposeProblem& problem, cudaStream_t stream);           // out = in, no shared memory
void copy_through_shared(const TransposeProblem& problem, cudaStream_t stream);  // out = in, via a tile
// Fine-grained half: each tile is transposed in place, the tiles do not move (out is rows x cols).
void transpose_within_tiles(const TransposeProblem& problem, cudaStream_t stream);
// Coarse-grained half: each tile moves to its transposed place, its contents are not transposed.
void move_tiles(const TransposeProblem& problem, cudaStream_t stream);

}  // namespace transpose_lab
