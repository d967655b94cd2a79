// Mutant of 01.3: registers counted as registers_per_thread x 32 a warp, not rounded up to the
// allocation unit. Right whenever that product is a multiple of 256 (8, 16, 24, ... registers a
// thread), wrong for the rest: the grader's kernels must include such counts.
#include <algorithm>
#include <climits>

#include "latency.h"
#include "one_defect.h"

namespace latency_lab {
Occupancy occupancy_of(const BlockShape& block, const SmLimits& sm) {
  const int warps_per_block = (block.threads + sm.warp_size - 1) / sm.warp_size;
  Occupancy result;
  result.blocks = sm.max_warps / warps_per_block;
  result.limiter = Limiter::kWarps;
  const auto consider = [&](int blocks, Limiter limiter) {
    if (blocks < result.blocks) result.blocks = blocks, result.limiter = limiter;
  };
  consider(sm.max_blocks, Limiter::kBlocks);
  if (block.registers_per_thread > 0) {
    const int per_warp = block.registers_per_thread * sm.warp_size;  // the defect: no rounding to register_unit
    const int warps_per_scheduler = sm.registers / sm.schedulers / per_warp;
    consider(warps_per_block * per_warp > sm.registers_per_block ? 0 : warps_per_scheduler * sm.schedulers / warps_per_block,
             Limiter::kRegisters);
  }
  // A block that takes no shared memory, on an SM that reserves none for it (a V100's), is not
  // limited by it: as in the solution, so that this mutant has one defect, not a division by zero too.
  const int shared = (block.shared_bytes + sm.shared_reserved_per_block + sm.shared_unit - 1) / sm.shared_unit * sm.shared_unit;
  if (shared > 0) consider(sm.shared_bytes / shared, Limiter::kSharedMemory);
  result.warps = result.blocks * warps_per_block;
  return result;
}
void measure_fma_latency(const LatencyProblem&, cudaStream_t) { latency_mutant::not_this_mutant("01.3"); }
void measure_load_latency(const LatencyProblem&, cudaStream_t) { latency_mutant::not_this_mutant("01.3"); }
void fma_with_ilp(const LatencyProblem&, cudaStream_t) { latency_mutant::not_this_mutant("01.3"); }
}  // namespace latency_lab
