// Defence mutant [outside-timer]: the copy is launched with <<<>>> on a stream of the launcher's
// own, so the launch log never hears of it, and left running when the launcher returns; a token
// kernel goes through workbook::launch on the given stream. Only the second clock sees the copy:
// the device stays busy long after the timed stream's stop event.
#include "every_step.h"
#include "honest_copy.cuh"

namespace {
__global__ void token_kernel() {}
}  // namespace

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  workbook::allow_dynamic_shared_memory(honest_copy_kernel, p.occupancy_padding_bytes);
  if (p.n > 0)  // the defect: the real work, unrecorded, on another stream
    honest_copy_kernel<<<honest_grid(p.n, p.threads_per_block), p.threads_per_block, p.occupancy_padding_bytes,
                         own_stream()>>>(p.in, p.out, p.n);
  workbook::launch(token_kernel, dim3(1), dim3(p.threads_per_block), p.occupancy_padding_bytes, stream);
}
