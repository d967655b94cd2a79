// Defence mutant [guard]: a correct copy whose first thread also writes the float just before
// `out` (an index computed one too low somewhere, say). Every element of the output is right;
// the memory in front of it, which belongs to someone else, is not.
#include "every_step.h"
#include "honest_copy.cuh"

namespace {
__global__ void write_before_kernel(float* out) { out[-1] = 0.0f; }  // the defect
}  // namespace

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  honest_copy(p, p.n, stream);
  if (p.n > 0) workbook::launch(write_before_kernel, dim3(1), dim3(1), 0, stream, p.out);
}
