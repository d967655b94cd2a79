// Defence mutant [input-changed]: a correct transpose that then fills its input with zeros (casting
// away the const), as if it were its own scratch space. Every output is right; the caller's matrix
// is gone.
#include "every_step.h"
#include "honest_transpose.cuh"

void transpose_mutant::wrong_transpose(const transpose_lab::TransposeProblem& p, cudaStream_t stream) {
  honest_transpose(p, 0, tile_rows(p), stream);
  if (p.rows > 0 && p.cols > 0)  // the defect
    CUDA_CHECK(cudaMemsetAsync(const_cast<float*>(p.in), 0, std::size_t(p.rows) * p.cols * sizeof(float), stream));
}
