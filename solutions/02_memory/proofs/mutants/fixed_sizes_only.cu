// Mutant: a copy that is right only at the sizes the grader used to check, a fixed list a student
// could read off a failure message or the grader's source, and at the timed size; at any other it
// leaves the last float unwritten. Only sizes drawn from the seed (drawn_sizes.h) can catch it.
#include <algorithm>
#include <array>

#include "every_step.h"
#include "honest_copy.cuh"

namespace {
bool in_the_old_list(std::size_t n) {
  constexpr std::array kFixed = {0, 1, 2, 3, 4, 5, 7, 8, 31, 32, 33, 63, 64, 65, 1000};
  if (std::find(kFixed.begin(), kFixed.end(), n) != kFixed.end()) return true;
  for (std::size_t threads : {128, 256})
    for (std::size_t per_thread : {1, 4, 8, 16, 64})
      if (const std::size_t tile = threads * per_thread; n + 1 >= tile && n <= tile + 1) return true;
  for (std::size_t stage : {4096, 8192, 16384, 32768})
    if ((n + 1 >= stage && n <= stage + 1) || n == 3 * stage + 5) return true;
  return n == (std::size_t{1} << 24) + 1001 || n == std::size_t{1} << 26;  // the large case; the timed size
}
}  // namespace

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  honest_copy(p, in_the_old_list(p.n) ? p.n : p.n - 1, stream);  // the defect: the last float of any other size
}
