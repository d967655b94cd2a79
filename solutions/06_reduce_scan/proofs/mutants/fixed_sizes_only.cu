// Mutant: a sum and a scan that are right only at the sizes the grader used to check (a fixed list)
// and the timed size; at any other they leave out the last int. Only sizes drawn from the seed
// (drawn_sizes.h) can catch it.
#include <algorithm>
#include <array>

#include "every_step.h"
#include "tile_scan.cuh"

namespace {
bool in_the_old_list(std::size_t n) {
  constexpr std::array<std::size_t, 12> kFixed = {0, 1, 2, 3, 31, 32, 33, 1000, 65521, 1000003, (std::size_t{1} << 24) + 1,
                                                  std::size_t{1} << 28};
  if (std::find(kFixed.begin(), kFixed.end(), n) != kFixed.end()) return true;
  for (std::size_t block : {256, 512, 4096, 256 * 256, 4096 * 256})
    if (n + 1 >= block && n <= block + 1) return true;
  return n == 4097;  // an unaligned case's
}
reduce_scan_lab::SumProblem cut(const reduce_scan_lab::SumProblem& p) {
  reduce_scan_lab::SumProblem shorter = p;
  if (!in_the_old_list(p.n)) shorter.n = p.n - 1;  // the defect: the last int of any other size
  return shorter;
}
}  // namespace

namespace reduce_scan_mutant {
void wrong_sum(const reduce_scan_lab::SumProblem& p, cudaStream_t s) { grid_sum(cut(p), s, "fixed_sizes_only"); }
void wrong_scan(const reduce_scan_lab::SumProblem& p, cudaStream_t s) {
  tile_scan<TilesByCounter, WholeWordLookBack>(cut(p), s, "fixed_sizes_only");
}
std::size_t sum_workspace_bytes(const reduce_scan_lab::SumProblem&) { return 0; }
std::size_t scan_workspace_bytes(const reduce_scan_lab::SumProblem& shape) { return scan_workspace_bytes_for(shape.n); }
}  // namespace reduce_scan_mutant
