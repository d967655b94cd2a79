// Lab 01_latency, step 01.3: an occupancy calculator in plain C++ (draft: the lab's other steps and
// its grader are still to come).
//
// Occupancy is the share of an SM's warp slots a kernel's blocks fill: active warps / maximum warps.
// Four resources limit how many blocks fit on one SM at once (the Fermi occupancy slides' worked
// examples, redone with this GPU's limits): warp slots, block slots, registers and shared memory.
// Each is allocated in units (registers per warp, shared memory per block), and the scarcest one
// decides. The grader checks your calculator against cudaOccupancyMaxActiveBlocksPerMultiprocessor.
#pragma once

namespace latency_lab {

// What one SM offers, as cudaDeviceProp reports it (the H100's values in the comments).
struct SmLimits {
  int warp_size = 32;
  int max_warps = 64;                   // maxThreadsPerMultiProcessor / warpSize
  int max_blocks = 32;                  // maxBlocksPerMultiProcessor
  int registers = 65536;                // regsPerMultiprocessor
  int register_unit = 256;              // registers are given to a warp in multiples of this
  int shared_bytes = 233472;            // sharedMemPerMultiprocessor: 228 KiB
  int shared_reserved_per_block = 1024; // reservedSharedMemPerBlock: the system's own, per block
  int shared_unit = 128;                // shared memory is given to a block in multiples of this
};

// What one block of a kernel asks for.
struct BlockShape {
  int threads = 0;                // per block, at least 1
  int registers_per_thread = 0;   // as ptxas reports them (0: none)
  int shared_bytes = 0;           // static + dynamic, per block
};

enum class Limiter { kWarps, kBlocks, kRegisters, kSharedMemory };

struct Occupancy {
  int blocks = 0;   // resident blocks per SM
  int warps = 0;    // resident warps per SM
  Limiter limiter = Limiter::kWarps;  // the resource that allows the fewest blocks
  double fraction(const SmLimits& sm) const { return double(warps) / sm.max_warps; }
};

Occupancy occupancy_of(const BlockShape& block, const SmLimits& sm);  // TODO(01.3)

}  // namespace latency_lab
