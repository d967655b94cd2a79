// Defence mutant [remembered-work]: after two calls with the same arguments it copies only the
// first 60% of the floats, since the rest "is still there" from the last call. A grader that
// checked one call and then timed repeated calls on the same buffers would see the right output
// at 1.7 times the speed. Outputs poisoned before every timed call, and inputs drawn afresh,
// leave the other 40% wrong.
#include <tuple>

#include "every_step.h"
#include "honest_copy.cuh"

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  static std::tuple<const float*, float*, std::size_t, int, std::size_t> last{};
  static int repeats = 0;
  const auto arguments = std::make_tuple(p.in, p.out, p.n, p.threads_per_block, p.occupancy_padding_bytes);
  repeats = arguments == last ? repeats + 1 : 0;
  last = arguments;
  const std::size_t n = repeats >= 2 ? p.n / 10 * 6 : p.n;  // the defect
  honest_copy(p, n, stream);
}
