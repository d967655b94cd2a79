// Closed-class mutant [calls-alike]: a kernel that tells one call from the others by what is in L2.
// The grader once timed launch by launch (to learn which launches take a call's time, and so the
// occupancy a bar reads) only one extra call, the only one with no L2 flush before it: the output
// the grader had just poisoned was still in L2 there, and nowhere else. So a probe, one block at the
// step's block size and padding (6.25% occupancy at 02.1-02.4), times loads of the output's last
// lines against loads of the input's first (which the grader wrote before the output, so they are
// never in L2): where the output's come clearly faster (still in L2), it spins for 5 ms and
// takes nearly all of that call's time, so the occupancy read is its own; in every timed call it
// finds them cold, returns at once, and the copy beside it runs at full occupancy. With every call
// timed launch by launch after the same flush, the probe finds the same every time: it never spins,
// and the copy at 100% is what the bar reads (02.1 and 02.4 fail on occupancy).
#include <cstdint>

#include "every_step.h"
#include "honest_copy.cuh"

namespace {

constexpr int kProbedLines = 32;
constexpr int kFloatsPerLine = 32;  // 128-byte lines
constexpr long long kSpinNanoseconds = 5'000'000;

__device__ long long nanoseconds() {
  long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

// Cycles for kProbedLines dependent loads of the lines at `lines`, L1 bypassed. `zero` is 0, but
// the compiler cannot know it: each address depends on the value loaded before it.
__device__ long long chase_cycles(const float* lines, unsigned zero) {
  unsigned link = 0;
  const long long begin = clock64();
  for (int l = 0; l < kProbedLines; ++l) link = __float_as_uint(__ldcg(lines + l * kFloatsPerLine + (link & zero)));
  const long long finish = clock64();
  if (link == 0x7fc00001u && zero != 0) asm volatile("trap;");  // keeps the chain: never taken
  return finish - begin;
}

__global__ void probe_kernel(const float* output_tail, const float* input_head, unsigned zero) {
  if (threadIdx.x != 0) return;
  const long long tail = chase_cycles(output_tail, zero);  // from L2 if the grader's poison is still there
  const long long cold = chase_cycles(input_head, zero);   // from memory: the grader wrote the input before the output
#ifdef PROBE_PRINTS
  printf("probe tail %lld cold %lld\n", tail, cold);
#endif
  const bool warm = 4 * tail < 3 * cold;
  if (!warm) return;
  const long long until = nanoseconds() + kSpinNanoseconds;
  while (nanoseconds() < until) {
  }
}

}  // namespace

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  if (p.n == 0) return;
  const std::size_t probed = std::size_t{kProbedLines} * kFloatsPerLine;
  // The probe, at the step's block size and padding: the launch the bar would read in the call it spins in ...
  if (p.n >= probed)
    workbook::launch(probe_kernel, dim3(1), dim3(p.threads_per_block), p.occupancy_padding_bytes, stream,
                     static_cast<const float*>(p.out + (p.n - probed)), p.in, 0u);
  // ... and the work at full occupancy.
  constexpr int kThreads = 256;
  workbook::launch(honest_copy_kernel, honest_grid(p.n, kThreads), dim3(kThreads), 0, stream, p.in, p.out, p.n);
}
