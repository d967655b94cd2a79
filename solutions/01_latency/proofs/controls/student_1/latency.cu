// Lab 01_latency: latency, throughput and Little's law. This is the file you edit.
//
// Little's law: the work in flight = throughput x latency. To keep a unit busy that starts one
// operation a cycle, when each operation takes L cycles to finish, L independent operations must
// be in flight. This lab measures L for the two operations every kernel is made of, an FMA and a
// load; counts the warps an SM can hold, one way to have operations in flight; and then hides the
// FMA's latency with the other way, independent FMAs within each thread (Volkov 2010).
//   TODO(01.1)  measure a dependent FMA's latency in cycles, with clock64()
//   TODO(01.2)  measure a load's latency in L1, in L2 and in device memory, with a pointer chase
//   TODO(01.3)  an occupancy calculator: blocks and warps per SM, and what limits them
//   TODO(01.4)  the FMA's throughput at 4 warps per SM: independent chains per thread (ILP)
// labs/01_latency/README.md explains each step and its bar. Grade it with `./workbook grade 01`.

#include <algorithm>
#include <climits>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "given.cuh"  // given: the checks, the chase's layout
#include "latency.h"
#include "workbook/launch.cuh"

namespace latency_lab {

namespace {

struct Policy {
  // TODO(01.4): how many independent chains each thread steps together. Little's law says how many
  // you need at one warp per scheduler: the FMA's latency (01.1) x one FMA issued a cycle.
  static constexpr int kIlp = 4;  // Little's law: ~4 cycles of latency x 1 FMA a cycle per scheduler
  static_assert((kIlp & (kIlp - 1)) == 0 && kIlp <= 8,
                "a power of two up to 8, so that the grader's chains fill whole waves of blocks");
};

// TODO(01.1): one thread runs the chain: x = *start, then p.fma.length times x = fmaf(x, a, b),
// then *end = x. Read clock64() just before and just after the loop and store the difference in
// *cycles. Store x, or the compiler sees a loop whose result nobody uses and deletes it; the grader
// checks it against its own chain, bit for bit. Unroll the loop (#pragma unroll 128): otherwise its
// count, compare and branch sit between the FMAs, and you measure them too.
//
// TODO(01.2): two parts.
//   On the host, in the launcher: the bytes / 128 line numbers in random order (std::shuffle with
//   std::mt19937_64 seeded with chase.seed), each linked to the next in that order and the last
//   back to the first: word 32 * order[i] holds 32 * order[i + 1]. That is one cycle through every
//   line. Copy the words to chase.lines with cudaMemcpyAsync on `stream`.
//   On the device, one thread: link = 0; follow warmup_loads links (link = lines[link]); read
//   clock64(); follow timed_loads links; read clock64(); store the link you ended on in *last and
//   the difference in *cycles. Why random, and why one cycle: the handout.
//
// TODO(01.4): a kernel template with kIlp as its parameter. Thread t of the T threads in the grid
// takes chains t, t + T, ..., t + (kIlp - 1) T (those below p.fma.chains), keeps them in a register
// array float x[kIlp], and steps them all together: for each of the `length` steps, one FMA per
// chain. Launch ceil(chains / kIlp) threads in blocks of p.threads_per_block, with
// p.occupancy_padding_bytes of dynamic shared memory. Measure it with the step loop as it is, then
// unrolled (#pragma unroll 16): at 4 warps per SM each warp is alone on its scheduler, and the
// loop's own instructions take issue slots from the FMAs.

// 01.1: one thread, one dependent chain, timed with clock64().
__global__ void fma_latency_kernel(const float* start, float* end, int length, float a, float b, long long* cycles) {
  float x = *start;
  const long long before = clock64();
#pragma unroll 128
  for (int i = 0; i < length; ++i) x = fmaf(x, a, b);
  const long long after = clock64();
  *end = x;
  *cycles = after - before;
}

// 01.2: one thread follows the links; each load's address is the previous load's value.
__global__ void pointer_chase_kernel(const std::uint32_t* lines, int warmup_loads, int timed_loads,
                                     std::uint32_t* last, long long* cycles) {
  std::uint32_t link = 0;
  for (int i = 0; i < warmup_loads; ++i) link = lines[link];
  const long long before = clock64();
  for (int i = 0; i < timed_loads; ++i) link = lines[link];
  const long long after = clock64();
  *last = link;
  *cycles = after - before;
}

// 01.4: kIlp independent chains per thread, stepped together. Thread t of the T threads takes
// chains t, t + T, ..., t + (kIlp - 1) T. 32-bit indices (validated below).
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

}  // namespace

void measure_fma_latency(const LatencyProblem& p, cudaStream_t stream) {
  validate_chains(p.fma, "measure_fma_latency");
  validate_clock(p, "measure_fma_latency");
  // One chain (the first), one thread.
  workbook::launch(fma_latency_kernel, dim3(1), dim3(1), 0, stream, p.fma.start, p.fma.end, p.fma.length, p.fma.a,
                   p.fma.b, p.cycles);
}

void measure_load_latency(const LatencyProblem& p, cudaStream_t stream) {
  validate_chase(p.chase, "measure_load_latency");
  validate_clock(p, "measure_load_latency");
  const PointerChase& chase = p.chase;
  const std::size_t lines = chase.bytes / kLineBytes;
  // The line numbers in random order: one cycle through every line, line order[i] -> order[i + 1].
  std::vector<std::uint32_t> order(lines);
  std::iota(order.begin(), order.end(), std::uint32_t{0});
  std::mt19937_64 random(chase.seed);
  std::shuffle(order.begin(), order.end(), random);
  std::vector<std::uint32_t> words(chase.bytes / sizeof(std::uint32_t), 0u);
  for (std::size_t i = 0; i < lines; ++i) {
    const std::uint32_t next = order[i + 1 < lines ? i + 1 : 0];
    words[std::size_t{kWordsPerLine} * order[i]] = kWordsPerLine * next;
  }
  // Pageable source: the call returns once it has taken the bytes, so `words` may go out of scope.
  CUDA_CHECK(cudaMemcpyAsync(chase.lines, words.data(), chase.bytes, cudaMemcpyHostToDevice, stream));
  workbook::launch(pointer_chase_kernel, dim3(1), dim3(1), 0, stream, static_cast<const std::uint32_t*>(chase.lines),
                   chase.warmup_loads, chase.timed_loads, chase.last, p.cycles);
}

// TODO(01.3): from the block's shape and the SM's limits, how many blocks fit on one SM at once.
// Count what each resource allows, and take the smallest:
//   warps:     sm.max_warps / the block's warps (a block of 100 threads takes 4 warps)
//   blocks:    sm.max_blocks
//   registers: a warp's registers (registers_per_thread x 32) round up to a multiple of
//              sm.register_unit; each of the sm.schedulers holds sm.registers / sm.schedulers of
//              them, so as many whole warps as fit in that; a block needs all its warps at once.
//              And a block whose warps, in groups of sm.schedulers rounded up, need more than
//              sm.registers_per_block does not fit at all.
//   shared:    the block's bytes plus sm.shared_reserved_per_block, rounded up to sm.shared_unit
// Name the resource that allows the fewest blocks as the limiter.
Occupancy occupancy_of(const BlockShape& block, const SmLimits& sm) {
  const auto round_up = [](long long value, long long unit) { return unit > 0 ? (value + unit - 1) / unit * unit : value; };
  const long long warps_per_block = (block.threads + sm.warp_size - 1) / sm.warp_size;

  // Warp slots, and the SM's block limit.
  const long long by_warps = warps_per_block > 0 ? sm.max_warps / warps_per_block : LLONG_MAX;
  const long long by_blocks = sm.max_blocks;

  // Registers: allocated per warp in units of register_unit, from each scheduler's share.
  long long by_registers = LLONG_MAX;
  const long long registers_per_warp = round_up(1LL * block.registers_per_thread * sm.warp_size, sm.register_unit);
  if (registers_per_warp > 0) {
    const long long warps_in_groups = round_up(warps_per_block, sm.schedulers);
    if (registers_per_warp * warps_in_groups > sm.registers_per_block) {
      by_registers = 0;  // the block does not fit at all
    } else {
      const long long warps_per_scheduler = (sm.registers / sm.schedulers) / registers_per_warp;
      by_registers = warps_per_scheduler * sm.schedulers / warps_per_block;
    }
  }

  // Shared memory: the block's bytes plus the system's, in units of shared_unit. A block that takes
  // none (and none is reserved) is limited by nothing here.
  long long by_shared = LLONG_MAX;
  const long long shared_per_block = round_up(1LL * block.shared_bytes + sm.shared_reserved_per_block, sm.shared_unit);
  if (shared_per_block > 0) by_shared = sm.shared_bytes / shared_per_block;

  Occupancy result;
  long long fewest = by_warps;
  result.limiter = Limiter::kWarps;
  if (by_blocks < fewest) fewest = by_blocks, result.limiter = Limiter::kBlocks;
  if (by_registers < fewest) fewest = by_registers, result.limiter = Limiter::kRegisters;
  if (by_shared < fewest) fewest = by_shared, result.limiter = Limiter::kSharedMemory;
  result.blocks = static_cast<int>(std::max(0LL, fewest));
  result.warps = static_cast<int>(result.blocks * warps_per_block);
  return result;
}

void fma_with_ilp(const LatencyProblem& p, cudaStream_t stream) {
  validate_chains(p.fma, "fma_with_ilp");
  validate_launch_shape(p, "fma_with_ilp");
  constexpr int kIlp = Policy::kIlp;
  // 32-bit indices: thread t + (kIlp - 1) T must stay below 2^32.
  if (p.fma.chains > (std::size_t{1} << 31))
    throw std::invalid_argument("fma_with_ilp: at most 2^31 chains (the kernel indexes them with 32-bit integers)");
  const std::size_t threads = workbook::ceil_div(p.fma.chains, std::size_t{kIlp});
  const std::size_t blocks = workbook::ceil_div(threads, static_cast<std::size_t>(p.threads_per_block));
  workbook::launch(fma_ilp_kernel<kIlp>, dim3(static_cast<unsigned>(blocks)), dim3(p.threads_per_block),
                   p.occupancy_padding_bytes, stream, p.fma.start, p.fma.end, static_cast<unsigned>(p.fma.chains),
                   p.fma.length, p.fma.a, p.fma.b);
}

}  // namespace latency_lab
