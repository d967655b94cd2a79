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

#include <stdexcept>
#include <string>

#include "given.cuh"  // given: the checks, the chase's layout
#include "latency.h"
#include "workbook/launch.cuh"

namespace latency_lab {

namespace {

struct Policy {
  // TODO(01.4): how many independent chains each thread steps together. Little's law says how many
  // you need at one warp per scheduler: the FMA's latency (01.1) x one FMA issued a cycle.
  static constexpr int kIlp = 1;
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

[[noreturn]] void not_implemented(const char* todo, const char* step) {
  throw workbook::NotImplemented(std::string(todo) + " not implemented: " + step);
}

}  // namespace

void measure_fma_latency(const LatencyProblem& p, cudaStream_t) {
  validate_chains(p.fma, "measure_fma_latency");
  validate_clock(p, "measure_fma_latency");
  not_implemented("TODO(01.1)", "time a dependent FMA chain with clock64()");
}

void measure_load_latency(const LatencyProblem& p, cudaStream_t) {
  validate_chase(p.chase, "measure_load_latency");
  validate_clock(p, "measure_load_latency");
  not_implemented("TODO(01.2)", "chase pointers through a random cycle, one thread, timed with clock64()");
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
Occupancy occupancy_of(const BlockShape&, const SmLimits&) {
  not_implemented("TODO(01.3)", "count the blocks each resource allows, and take the fewest");
}

void fma_with_ilp(const LatencyProblem& p, cudaStream_t) {
  validate_chains(p.fma, "fma_with_ilp");
  validate_launch_shape(p, "fma_with_ilp");
  not_implemented("TODO(01.4)", "step kIlp independent FMA chains per thread");
}

}  // namespace latency_lab
