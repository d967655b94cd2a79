// Mutant: decoupled look-back with each tile's flag, total and inclusive prefix in three arrays of
// words, each value written and then its flag, with no fence between them. Another SM may see the
// flag before the value, and add the value that was there before (0). Wrong only now and then: the
// grader's correctness cases, many tiles each, are its stress run. Built with
// WORKBOOK_MUTANT_CONTROL, it is the control: the same code with the fences, which must be right.
#include "every_step.h"
#include "tile_scan.cuh"

namespace {
using namespace reduce_scan_mutant;

#ifdef WORKBOOK_MUTANT_CONTROL
constexpr bool kFenced = true;
#else
constexpr bool kFenced = false;
#endif

// Thread 0 alone looks back, one predecessor at a time.
struct SplitWordsLookBack {
  ScanWorkspace w;
  long long tile;

  __device__ unsigned operator()(unsigned tile_total) const {
    if (threadIdx.x != 0) return 0;
    volatile unsigned* const flags = reinterpret_cast<volatile unsigned*>(w.states);
    volatile unsigned* const totals = flags + gridDim.x;  // one tile per block
    volatile unsigned* const prefixes = totals + gridDim.x;
    unsigned before = 0;
    if (tile > 0) {
      totals[tile] = tile_total;
      if (kFenced) __threadfence();  // the defect: without it, the flag may be seen first
      flags[tile] = kAggregate;
      for (long long j = tile - 1; j >= 0; --j) {
        unsigned flag;
        while ((flag = flags[j]) == kNothingYet) {
        }
        if (kFenced) __threadfence();  // and the value must not be read before the flag
        before += flag == kPrefix ? prefixes[j] : totals[j];
        if (flag == kPrefix) break;
      }
    }
    prefixes[tile] = before + tile_total;
    if (kFenced) __threadfence();
    flags[tile] = kPrefix;
    return before;
  }
};
}  // namespace

namespace reduce_scan_mutant {
void wrong_sum(const reduce_scan_lab::SumProblem&, cudaStream_t) { not_this_mutant("sums"); }
void wrong_scan(const reduce_scan_lab::SumProblem& p, cudaStream_t s) {
  tile_scan<TilesByCounter, SplitWordsLookBack>(p, s, "look_back_unfenced");
}
std::size_t sum_workspace_bytes(const reduce_scan_lab::SumProblem&) { return 0; }
std::size_t scan_workspace_bytes(const reduce_scan_lab::SumProblem& shape) { return scan_workspace_bytes_for(shape.n); }
}  // namespace reduce_scan_mutant
