// Lab 01_latency, reference solution of step 01.3: the occupancy calculator.
#include "occupancy.h"

#include <algorithm>
#include <climits>
#include <stdexcept>

namespace latency_lab {

namespace {
int round_up(int value, int unit) { return (value + unit - 1) / unit * unit; }
}  // namespace

Occupancy occupancy_of(const BlockShape& block, const SmLimits& sm) {
  if (block.threads < 1 || block.registers_per_thread < 0 || block.shared_bytes < 0)
    throw std::invalid_argument("occupancy_of: a block needs at least one thread, and no negative resources");
  const int warps_per_block = (block.threads + sm.warp_size - 1) / sm.warp_size;

  // Each limit as the blocks it allows; INT_MAX where the block asks for none of that resource.
  const int by_warps = sm.max_warps / warps_per_block;
  const int by_blocks = sm.max_blocks;
  // Registers go to whole warps, in units: a warp of 32 threads at 40 registers takes 1280, rounded
  // up to 1280 (a multiple of 256); at 41 it takes 1312, rounded up to 1536. The SM holds as many
  // such warps as its registers allow, and a block needs all its warps at once.
  int by_registers = INT_MAX;
  if (block.registers_per_thread > 0) {
    const int per_warp = round_up(block.registers_per_thread * sm.warp_size, sm.register_unit);
    by_registers = (sm.registers / per_warp) / warps_per_block;
  }
  // Shared memory goes to whole blocks, in units, with the system's reserve added to each block.
  const int shared_per_block = round_up(block.shared_bytes + sm.shared_reserved_per_block, sm.shared_unit);
  const int by_shared = shared_per_block > 0 ? sm.shared_bytes / shared_per_block : INT_MAX;

  Occupancy result;
  result.blocks = by_warps;
  result.limiter = Limiter::kWarps;
  for (const auto& [blocks, limiter] : {std::pair{by_blocks, Limiter::kBlocks}, std::pair{by_registers, Limiter::kRegisters},
                                        std::pair{by_shared, Limiter::kSharedMemory}})
    if (blocks < result.blocks) {
      result.blocks = blocks;
      result.limiter = limiter;
    }
  result.warps = result.blocks * warps_per_block;
  return result;
}

}  // namespace latency_lab
