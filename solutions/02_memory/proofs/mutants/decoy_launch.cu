// Defence mutant [work-launches]: beside the copy it launches a decoy, one block that does nothing
// but is compiled to hold 254 registers a thread, at the step's block size and occupancy padding;
// the copy itself runs at full occupancy (256 threads, no padding). A grader that took the
// occupancy of the launch with the most registers would read the decoy's (6.25% at 02.1-02.4,
// 1.56% at 02.6) and let a full-speed copy clear 02.1 to 02.4, and 02.6's 95% of cudaMemcpy, "at
// low occupancy". The bar's occupancy is that of the launches weighted by their measured GPU time,
// so the decoy, which takes almost none of it, does not set it. (Registers alone cannot hide the
// copy: at 255 a thread an SM still holds 8 warps, 12.5%; the decoy takes the padding too.)
// Built with WORKBOOK_MUTANT_CONTROL, no decoy, and the copy honours the step's block size and
// padding (honest_copy): the control, which must be graded as honest work.
#include <algorithm>

#include "every_step.h"
#include "honest_copy.cuh"

#ifndef WORKBOOK_MUTANT_CONTROL
namespace {

constexpr int kDecoyThreads = 128;
constexpr int kDecoyLive = 208;       // floats the body keeps live at once: 254 registers, no spills
constexpr int kNeverPassed = 0x5eed;  // the key that would run the body; the launcher passes 0

// All of its cost is in registers: the body loads kDecoyLive floats, needs them all to form `sum`,
// then stores each scaled by it, so all of them are live at once. The body never runs.
__global__ void __launch_bounds__(kDecoyThreads, 1) decoy_kernel(const float* source, float* sink, int key) {
  if (key != kNeverPassed) return;
  float v[kDecoyLive];
#pragma unroll
  for (int i = 0; i < kDecoyLive; ++i) v[i] = source[threadIdx.x + i * kDecoyThreads];
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < kDecoyLive; ++i) sum = fmaf(sum, v[i], v[(i + 1) % kDecoyLive]);
#pragma unroll
  for (int i = 0; i < kDecoyLive; ++i) sink[threadIdx.x + i * kDecoyThreads] = v[i] * sum;
}

}  // namespace
#endif

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  if (p.n == 0) return;
#ifdef WORKBOOK_MUTANT_CONTROL
  honest_copy(p, p.n, stream);
#else
  // The defect: the launch the grader would read is the decoy's, at the step's occupancy ...
  workbook::launch(decoy_kernel, dim3(1), dim3(std::min(p.threads_per_block, kDecoyThreads)), p.occupancy_padding_bytes,
                   stream, p.in, p.out, 0);
  // ... and the work runs at full occupancy.
  constexpr int kThreads = 256;
  workbook::launch(honest_copy_kernel, honest_grid(p.n, kThreads), dim3(kThreads), 0, stream, p.in, p.out, p.n);
#endif
}
