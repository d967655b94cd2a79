// Defence mutant [input-changed]: a correct copy that also overwrites its input with zeros once it
// has read it (casting away the const). Every output is right; the caller's data is gone.
#include "every_step.h"
#include "honest_copy.cuh"

namespace {
__global__ void copy_and_clear_kernel(float* in, float* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    out[i] = in[i];
    in[i] = 0.0f;  // the defect
  }
}
}  // namespace

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  if (p.n == 0) return;
  workbook::launch(copy_and_clear_kernel, memory_mutant::honest_grid(p.n, p.threads_per_block), dim3(p.threads_per_block),
                   p.occupancy_padding_bytes, stream, const_cast<float*>(p.in), p.out, p.n);
}
