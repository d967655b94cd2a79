// Host-code mutant (judged): the copy engines do the work (cudaMemcpyAsync on the
// stream it was given), and a token kernel goes through workbook::launch so that the step has a
// kernel to report. Right and at memcpy speed at any occupancy, it would clear the bars of 02.1 to
// 02.3; judged, the planner refuses the device-to-device copy and every step fails.
#include "every_step.h"
#include "honest_copy.cuh"

namespace {
__global__ void token_kernel() {}
}  // namespace

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  if (p.n == 0) return;
  CUDA_CHECK(cudaMemcpyAsync(p.out, p.in, p.n * sizeof(float), cudaMemcpyDeviceToDevice, stream));  // the defect
  workbook::launch(token_kernel, dim3(1), dim3(p.threads_per_block), p.occupancy_padding_bytes, stream);
}
