// A mutant of lab 03_transpose is one wrong transpose, wrong_transpose(), used for every step, so
// the grader must reject every step. Each mutant's .cu defines wrong_transpose() and includes this
// header once: it provides the lab's launchers on top of it, and a correct diagonal_tile() (so
// that 03.3 is rejected for the transpose, not for the block order).
#pragma once

#include "transpose.h"

namespace transpose_mutant {
void wrong_transpose(const transpose_lab::TransposeProblem& problem, cudaStream_t stream);
}

namespace transpose_lab {
void transpose_tiled(const TransposeProblem& p, cudaStream_t s) { transpose_mutant::wrong_transpose(p, s); }
void transpose_padded(const TransposeProblem& p, cudaStream_t s) { transpose_mutant::wrong_transpose(p, s); }
void transpose_diagonal(const TransposeProblem& p, cudaStream_t s) { transpose_mutant::wrong_transpose(p, s); }
void transpose_at_copy_speed(const TransposeProblem& p, cudaStream_t s) { transpose_mutant::wrong_transpose(p, s); }
Tile diagonal_tile_on_host(unsigned block_x, unsigned block_y, unsigned grid_x, unsigned grid_y) {
  const unsigned b = block_x + grid_x * block_y;
  Tile tile;
  tile.y = b % grid_y;
  tile.x = (b / grid_y + tile.y) % grid_x;
  return tile;
}
}  // namespace transpose_lab
