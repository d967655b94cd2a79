// Mutant: decoupled look-back whose tile states are one 64-bit word each, written whole, but read as
// two 32-bit halves: the value first, then the flag. Between the two reads a tile may move from
// "aggregate" to "inclusive prefix": the reader then takes the tile's own total for the sum of
// everything before it. Wrong only now and then: the grader's correctness cases are its stress run.
// Built with WORKBOOK_MUTANT_CONTROL, it is the control: the same code reading each word whole.
#include "every_step.h"
#include "tile_scan.cuh"

namespace {
using namespace reduce_scan_mutant;

#ifdef WORKBOOK_MUTANT_CONTROL
constexpr bool kReadWhole = true;
#else
constexpr bool kReadWhole = false;
#endif

__device__ unsigned long long read_state(const unsigned long long* states, long long tile) {
  if (kReadWhole) return *reinterpret_cast<const volatile unsigned long long*>(states + tile);
  const volatile unsigned* halves = reinterpret_cast<const volatile unsigned*>(states + tile);
  const unsigned value = halves[0];  // the defect: two reads of one word, the value before the flag
  const unsigned flag = halves[1];
  return tile_state(flag, value);
}

// Thread 0 alone looks back, one predecessor at a time.
struct HalvesLookBack {
  ScanWorkspace w;
  long long tile;

  __device__ unsigned operator()(unsigned tile_total) const {
    if (threadIdx.x != 0) return 0;
    unsigned before = 0;
    if (tile > 0) {
      atomicExch(w.states + tile, tile_state(kAggregate, tile_total));
      for (long long j = tile - 1; j >= 0; --j) {
        unsigned long long state;
        while (flag_of(state = read_state(w.states, j)) == kNothingYet) {
        }
        before += static_cast<unsigned>(state);
        if (flag_of(state) == kPrefix) break;
      }
    }
    atomicExch(w.states + tile, tile_state(kPrefix, before + tile_total));
    return before;
  }
};
}  // namespace

namespace reduce_scan_mutant {
void wrong_sum(const reduce_scan_lab::SumProblem&, cudaStream_t) { not_this_mutant("sums"); }
void wrong_scan(const reduce_scan_lab::SumProblem& p, cudaStream_t s) {
  tile_scan<TilesByCounter, HalvesLookBack>(p, s, "look_back_torn");
}
std::size_t sum_workspace_bytes(const reduce_scan_lab::SumProblem&) { return 0; }
std::size_t scan_workspace_bytes(const reduce_scan_lab::SumProblem& shape) { return scan_workspace_bytes_for(shape.n); }
}  // namespace reduce_scan_mutant
