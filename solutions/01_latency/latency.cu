// Lab 01_latency, reference solution: latency, throughput and Little's law.
//
// Little's law: the work in flight = throughput x latency. An SM of the H100 issues one warp-wide
// FMA per cycle on each of its 4 schedulers, and a dependent FMA waits about 4 cycles for the one
// before it (01.1): each scheduler needs 4 independent FMAs in flight to stay busy. They can come
// from 4 warps (occupancy) or from 4 independent chains in one warp (ILP, Volkov 2010); 01.4 takes
// the second way, at 4 warps per SM. A load waits 40 to 700 cycles (01.2), which is lab 02's
// problem; 01.3 counts the warps an SM can hold, the other factor of the law.
//   01.1  the FMA's latency: one dependent chain, timed with clock64()
//   01.2  a load's latency: one thread chasing a random cycle of pointers through each level
//   01.3  occupancy from a block's registers, shared memory and size, and what limits it
//   01.4  the FMA's throughput at 6.25% occupancy: kIlp independent chains per thread
#include <algorithm>
#include <climits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "given.cuh"  // given: the checks, the chase's layout
#include "latency.h"
#include "workbook/launch.cuh"

namespace latency_lab {

namespace {

struct Policy {
  // 01.4: independent chains per thread. Little's law at one warp per scheduler: latency (4
  // cycles) x issue rate (1 FMA a cycle) = 4 chains; twice that leaves room for the loop's own
  // instructions and for the odd cycle a chain's operands are late.
  static constexpr int kIlp = 8;
  static_assert(kIlp >= 4, "at one warp per scheduler, fewer than 4 chains leave the FMA unit idle");
  static_assert((kIlp & (kIlp - 1)) == 0 && kIlp <= 8,
                "a power of two up to 8, so that the grader's chains fill whole waves of blocks");
};

// ---------------------------------------------------------------------------------------------
// 01.1: each FMA needs the one before it, so the chain's time is its length x the latency. The
// result is stored, or the compiler deletes the chain; clock64() is read right before and after.
// Unrolled far, so that the loop's count, compare and branch come once per 128 FMAs: unrolled 16
// times, they added 0.37 cycles to each FMA on the H100 (4.44 instead of 4.07).
__global__ void fma_latency_kernel(const float* start, float* end, int length, float a, float b, long long* cycles) {
  float x = *start;
  const long long begin = clock64();
#pragma unroll 128
  for (int i = 0; i < length; ++i) x = fmaf(x, a, b);
  const long long finish = clock64();
  *end = x;
  *cycles = finish - begin;
}

// ---------------------------------------------------------------------------------------------
// 01.2: each load's address is the value the one before it loaded, so no two are ever in flight.
__global__ void chase_kernel(const std::uint32_t* lines, int warmup_loads, int timed_loads, std::uint32_t* last,
                             long long* cycles) {
  std::uint32_t link = 0;
  for (int i = 0; i < warmup_loads; ++i) link = lines[link];
  const long long begin = clock64();
  for (int i = 0; i < timed_loads; ++i) link = lines[link];
  const long long finish = clock64();
  *last = link;
  *cycles = finish - begin;
}

// The lines in random order, each linked to the next and the last back to the first: one cycle
// through every line. Random, so that no line brings the next one in with it and no prefetcher can
// guess it; one cycle, so that the chase visits every line before it comes back to any.
std::vector<std::uint32_t> random_cycle_of_links(std::size_t lines, std::uint64_t seed) {
  std::vector<std::uint32_t> order(lines);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  std::vector<std::uint32_t> words(lines * kWordsPerLine, 0u);
  for (std::size_t i = 0; i < lines; ++i) words[order[i] * kWordsPerLine] = order[(i + 1) % lines] * kWordsPerLine;
  return words;
}

// ---------------------------------------------------------------------------------------------
// 01.4: kIlp chains per thread, stepped together, so that each step issues kIlp FMAs that do not
// wait for each other. Thread t takes chains t, t + T, t + 2T, ... (T threads in all): a warp's
// loads and stores are contiguous. Indices are 32-bit (the launcher refuses 2^31 chains or more):
// with 64-bit ones this kernel ran at 80% of the FMA peak at 4 warps per SM on the H100, with 32-bit
// ones at 91% (NOTES.md).
template <int kIlp>
__global__ void fma_ilp_kernel(const float* start, float* end, unsigned chains, int length, float a, float b) {
  const unsigned threads = gridDim.x * blockDim.x;
  const unsigned first = blockIdx.x * blockDim.x + threadIdx.x;
  float x[kIlp];
#pragma unroll
  for (int c = 0; c < kIlp; ++c) {
    const unsigned chain = first + c * threads;
    x[c] = chain < chains ? start[chain] : 0.0f;
  }
  // Unrolled 16 times: a warp alone on its scheduler issues the loop's count, compare and branch in
  // slots an FMA could have had. On the H100, at 4 warps per SM, unrolled 4 times this kernel ran at
  // 16 TFMA/s, unrolled 16 times at 26 (experiments/ilp_shapes.cu).
#pragma unroll 16
  for (int i = 0; i < length; ++i) {
#pragma unroll
    for (int c = 0; c < kIlp; ++c) x[c] = fmaf(x[c], a, b);
  }
#pragma unroll
  for (int c = 0; c < kIlp; ++c) {
    const unsigned chain = first + c * threads;
    if (chain < chains) end[chain] = x[c];
  }
}

int round_up(int value, int unit) { return (value + unit - 1) / unit * unit; }

}  // namespace

void measure_fma_latency(const LatencyProblem& p, cudaStream_t stream) {
  validate_chains(p.fma, "measure_fma_latency");
  validate_clock(p, "measure_fma_latency");
  workbook::launch(fma_latency_kernel, dim3(1), dim3(1), 0, stream, p.fma.start, p.fma.end, p.fma.length, p.fma.a,
                   p.fma.b, p.cycles);
}

void measure_load_latency(const LatencyProblem& p, cudaStream_t stream) {
  const PointerChase& chase = p.chase;
  validate_chase(chase, "measure_load_latency");
  validate_clock(p, "measure_load_latency");
  const std::vector<std::uint32_t> words = random_cycle_of_links(chase.bytes / kLineBytes, chase.seed);
  // From pageable memory the copy is staged before the call returns, so `words` may go.
  CUDA_CHECK(cudaMemcpyAsync(chase.lines, words.data(), chase.bytes, cudaMemcpyHostToDevice, stream));
  workbook::launch(chase_kernel, dim3(1), dim3(1), 0, stream, chase.lines, chase.warmup_loads, chase.timed_loads,
                   chase.last, p.cycles);
}

Occupancy occupancy_of(const BlockShape& block, const SmLimits& sm) {
  if (block.threads < 1 || block.registers_per_thread < 0 || block.shared_bytes < 0)
    throw std::invalid_argument("occupancy_of: a block needs at least one thread, and no negative resources");
  const int warps_per_block = (block.threads + sm.warp_size - 1) / sm.warp_size;

  // Each resource as the blocks it allows; INT_MAX where the block asks for none of it.
  const int by_warps = sm.max_warps / warps_per_block;
  const int by_blocks = sm.max_blocks;
  // Registers go to whole warps, in units: at 40 registers a warp takes 1280 (a multiple of 256), at
  // 41 it takes 1312, rounded up to 1536. Each scheduler has its share of the SM's registers and
  // holds as many such warps as fit in it; a block needs all its warps at once. A block also must
  // fit the per-block limit, counted as the hardware does, in whole groups of `schedulers` warps.
  int by_registers = INT_MAX;
  if (block.registers_per_thread > 0) {
    const int per_warp = round_up(block.registers_per_thread * sm.warp_size, sm.register_unit);
    const int warps_per_scheduler = sm.registers / sm.schedulers / per_warp;
    const bool block_fits = per_warp * round_up(warps_per_block, sm.schedulers) <= sm.registers_per_block;
    by_registers = block_fits ? warps_per_scheduler * sm.schedulers / warps_per_block : 0;
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

void fma_with_ilp(const LatencyProblem& p, cudaStream_t stream) {
  validate_chains(p.fma, "fma_with_ilp");
  validate_launch_shape(p, "fma_with_ilp");
  if (p.fma.chains >= (std::size_t{1} << 31))
    throw std::invalid_argument("fma_with_ilp: 32-bit indices count fewer than 2^31 chains, not " + std::to_string(p.fma.chains));
  const std::size_t threads = workbook::ceil_div(p.fma.chains, std::size_t{Policy::kIlp});
  const std::size_t blocks = workbook::ceil_div(threads, std::size_t(p.threads_per_block));
  workbook::launch(fma_ilp_kernel<Policy::kIlp>, dim3(static_cast<unsigned>(blocks)), dim3(p.threads_per_block),
                   p.occupancy_padding_bytes, stream, p.fma.start, p.fma.end, static_cast<unsigned>(p.fma.chains),
                   p.fma.length, p.fma.a, p.fma.b);
}

}  // namespace latency_lab
