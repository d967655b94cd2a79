// Boundary mutant: the copy runs at full occupancy, launched with <<<>>> on the
// given stream (so it is timed), while a token kernel goes through workbook::launch with the
// occupancy padding. The launch log then reports 6.25% occupancy for a copy that ran at 100%,
// and 02.4's bar (10x the baseline at 6.25%) is cleared by the plainest copy there is. Judged, its
// planner refuses the <<<>>> launch.
#include "every_step.h"
#include "honest_copy.cuh"

namespace {
__global__ void token_kernel() {}
}  // namespace

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  if (p.n > 0)  // the defect: the real work bypasses workbook::launch, with no padding
    honest_copy_kernel<<<honest_grid(p.n, 256), 256, 0, stream>>>(p.in, p.out, p.n);
  workbook::launch(token_kernel, dim3(1), dim3(p.threads_per_block), p.occupancy_padding_bytes, stream);
}
