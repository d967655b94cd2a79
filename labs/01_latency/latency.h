// Lab 01_latency: latency, throughput and Little's law.
//
// The interface every implementation of the lab provides (the starter you edit, the reference
// solution, the grader's baseline and its mutants), so that one grader links against any of them.
// Plain C++: it compiles with the host compiler.
//
// Steps 01.1 and 01.2 measure how long one instruction takes (a dependent FMA, a load from each
// level of memory), 01.3 computes how many warps an SM can hold, and 01.4 uses both: enough
// independent FMAs in flight per SM hide the FMA's latency even at 4 warps per SM.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace latency_lab {

// Chains of dependent FMAs. Chain c starts at start[c] and takes `length` steps of
// x = fmaf(x, a, b); end[c] is where it ends. The grader computes every chain on the CPU and wants
// the same bits: each FMA rounds once, as fmaf() does, so any other order or formula differs.
struct FmaChains {
  const float* start = nullptr;  // `chains` values, read-only
  float* end = nullptr;          // `chains` values
  std::size_t chains = 0;
  int length = 0;                // FMAs per chain, at least 1
  float a = 1.0f;
  float b = 0.0f;
};

// A pointer chase through `bytes` of device memory: one link at the start of every 128-byte line,
// so that every load touches a line of its own. Word 32 k of `lines` is line k's link: the index
// of the word where the next line's link is (32 j for line j). Your launcher writes the links: a
// random cycle through every line. The chase starts at word 0, follows `warmup_loads` links
// untimed (they bring the lines into whatever cache holds them), then `timed_loads` links timed.
struct PointerChase {
  std::uint32_t* lines = nullptr;  // bytes / 4 words; their contents on entry are poison
  std::size_t bytes = 0;           // a multiple of 128
  std::uint64_t seed = 0;          // for your random cycle: the grader draws a fresh one every run
  int warmup_loads = 0;
  int timed_loads = 0;             // at least 1
  std::uint32_t* last = nullptr;   // one word: the link the chase ends on, after all its loads
};

struct LatencyProblem {
  FmaChains fma;        // 01.1 (one chain, one thread) and 01.4 (many chains)
  PointerChase chase;   // 01.2
  // 01.1 and 01.2: one word of device memory for the clock64() cycles your kernel measured over its
  // timed part (the FMAs of the chain, the timed loads). The grader divides by their number.
  long long* cycles = nullptr;
  // 01.4: where the grader measures your kernel, as in lab 02: the block size, and dynamic shared
  // memory the kernel never uses, which limits the blocks per SM and so the occupancy. Honour both.
  int threads_per_block = 128;
  std::size_t occupancy_padding_bytes = 0;
};

// 01.3: an occupancy calculator. What one SM offers (the H100's values in the comments; the grader
// fills them from the GPU it runs on, and from other GPUs' SMs: count, as the CUDA API cannot be
// asked about a GPU that is not there).
struct SmLimits {
  int warp_size = 32;
  int max_warps = 64;                     // maxThreadsPerMultiProcessor / warpSize
  int max_blocks = 32;                    // maxBlocksPerMultiProcessor
  int registers = 65536;                  // regsPerMultiprocessor, split evenly among the schedulers
  int registers_per_block = 65536;        // regsPerBlock: the most one block may hold
  int schedulers = 4;                     // warp schedulers (sub-partitions), each with its share of registers
  int register_unit = 256;                // a warp's registers are allocated in multiples of this
  int shared_bytes = 233472;              // sharedMemPerMultiprocessor: 228 KiB
  int shared_reserved_per_block = 1024;   // reservedSharedMemPerBlock: the system's own, per block
  int shared_unit = 128;                  // a block's shared memory is allocated in multiples of this
};

// What one block of a kernel asks for.
struct BlockShape {
  int threads = 0;               // per block, at least 1
  int registers_per_thread = 0;  // as ptxas reports them
  int shared_bytes = 0;          // static + dynamic, per block
};

enum class Limiter { kWarps, kBlocks, kRegisters, kSharedMemory };

struct Occupancy {
  int blocks = 0;  // resident blocks per SM (0: the block does not fit at all)
  int warps = 0;   // resident warps per SM
  Limiter limiter = Limiter::kWarps;  // a resource that allows no more blocks than `blocks`
  double fraction(const SmLimits& sm) const { return double(warps) / sm.max_warps; }
};

void measure_fma_latency(const LatencyProblem& problem, cudaStream_t stream);   // TODO(01.1)
void measure_load_latency(const LatencyProblem& problem, cudaStream_t stream);  // TODO(01.2)
Occupancy occupancy_of(const BlockShape& block, const SmLimits& sm);            // TODO(01.3)
void fma_with_ilp(const LatencyProblem& problem, cudaStream_t stream);          // TODO(01.4)

}  // namespace latency_lab
