// Mutant: a transpose that is right only at the shapes the grader used to check (a fixed list) and
// at the timed ones; at any other it leaves the last row of tiles untransposed. Only shapes drawn
// from the seed (drawn_sizes.h) can catch it.
#include <algorithm>
#include <array>
#include <utility>

#include "every_step.h"
#include "honest_transpose.cuh"

namespace transpose_mutant {
namespace {
bool in_the_old_list(int rows, int cols) {
  constexpr std::array<std::pair<int, int>, 27> kFixed = {{
      {0, 0}, {0, 5}, {5, 0}, {1, 1}, {1, 7}, {7, 1}, {2, 3}, {31, 33}, {33, 31}, {32, 32}, {33, 33}, {63, 65}, {64, 64},
      {65, 63}, {72, 200}, {1, 5000}, {5000, 1}, {257, 129}, {1023, 2049}, {2049, 1023}, {4000, 4000}, {2048, 2048},
      {4096, 4096}, {8191, 8191}, {8192, 8192}, {200, 72}, {31, 33}}};
  return std::find(kFixed.begin(), kFixed.end(), std::pair{rows, cols}) != kFixed.end();
}
}  // namespace

void wrong_transpose(const transpose_lab::TransposeProblem& p, cudaStream_t stream) {
  const int tiles = tile_rows(p);
  honest_transpose(p, 0, in_the_old_list(p.rows, p.cols) ? tiles : tiles - 1, stream);  // the defect: the last tiles
}

}  // namespace transpose_mutant
