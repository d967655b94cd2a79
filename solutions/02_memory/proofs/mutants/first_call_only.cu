// Mutant: copies correctly on the first call and does nothing on every later one. A grader that
// checked one call and then timed the others (with the right answer still in the output from the
// first) would call it infinitely fast. Fresh inputs per size, outputs poisoned before timing and
// checked again after it catch it.
#include "every_step.h"
#include "workbook/launch.cuh"

namespace memory_mutant {

namespace {
__global__ void copy_kernel(const float* in, float* out, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
bool already_called = false;
}  // namespace

void wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  if (already_called || p.n == 0) return;  // the defect
  already_called = true;
  const std::size_t blocks = workbook::ceil_div(p.n, std::size_t(p.threads_per_block));
  workbook::launch(copy_kernel, dim3(static_cast<unsigned>(blocks)), dim3(p.threads_per_block),
                   p.occupancy_padding_bytes, stream, p.in, p.out, p.n);
}

}  // namespace memory_mutant
