// Defence mutant [remembered-work]: after two calls with the same arguments it transposes only the
// first half of the tile rows, since the rest "is still there" from the last call. Outputs poisoned
// before every timed call, and inputs drawn afresh, leave the other half wrong.
#include <tuple>

#include "every_step.h"
#include "honest_transpose.cuh"

void transpose_mutant::wrong_transpose(const transpose_lab::TransposeProblem& p, cudaStream_t stream) {
  static std::tuple<const float*, float*, int, int> last{};
  static int repeats = 0;
  const auto arguments = std::make_tuple(p.in, p.out, p.rows, p.cols);
  repeats = arguments == last ? repeats + 1 : 0;
  last = arguments;
  const int rows_of_tiles = tile_rows(p);
  honest_transpose(p, 0, repeats >= 2 ? rows_of_tiles / 2 : rows_of_tiles, stream);  // the defect
}
