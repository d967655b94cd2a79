// Mutant: one float per thread with no bounds check. The grid is rounded up to whole blocks, so
// the last block writes past the end of `out` whenever n is not a multiple of the block size.
// Every element the test looks at is right; only the guard region after `out` shows the damage.
#include "every_step.h"
#include "workbook/launch.cuh"

namespace memory_mutant {

namespace {
__global__ void copy_unguarded_kernel(const float* in, float* out) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  out[i] = in[i];  // the defect: no `if (i < n)`
}
}  // namespace

void wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  if (p.n == 0) return;
  const std::size_t blocks = workbook::ceil_div(p.n, std::size_t(p.threads_per_block));
  workbook::launch(copy_unguarded_kernel, dim3(static_cast<unsigned>(blocks)), dim3(p.threads_per_block),
                   p.occupancy_padding_bytes, stream, p.in, p.out);
}

}  // namespace memory_mutant
