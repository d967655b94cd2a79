// Boundary mutant: a token kernel goes through workbook::launch on the given stream;
// the copy itself is launched with <<<>>> on a stream of the launcher's own, made to wait for the
// token (an event), and is still running when the token, and so the timed stream, is done. Judged,
// its planner refuses the <<<>>>.
#include "every_step.h"
#include "honest_copy.cuh"

namespace {
__global__ void token_kernel() {}
}  // namespace

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  static cudaEvent_t token_done = [] {
    cudaEvent_t e = nullptr;
    CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    return e;
  }();
  workbook::launch(token_kernel, dim3(1), dim3(p.threads_per_block), p.occupancy_padding_bytes, stream);
  if (p.n == 0) return;
  CUDA_CHECK(cudaEventRecord(token_done, stream));
  CUDA_CHECK(cudaStreamWaitEvent(own_stream(), token_done));
  workbook::allow_dynamic_shared_memory(honest_copy_kernel, p.occupancy_padding_bytes);
  // The defect: the real work, unrecorded, on another stream, left running.
  honest_copy_kernel<<<honest_grid(p.n, p.threads_per_block), p.threads_per_block, p.occupancy_padding_bytes,
                       own_stream()>>>(p.in, p.out, p.n);
}
