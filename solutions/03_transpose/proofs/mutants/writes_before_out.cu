// Defence mutant [guard]: a correct transpose whose launcher also clears the 16 floats just before
// `out` (a row offset of one too few, say). Every element of the output is right; the memory in
// front of it, which belongs to someone else, is not.
#include "every_step.h"
#include "honest_transpose.cuh"

void transpose_mutant::wrong_transpose(const transpose_lab::TransposeProblem& p, cudaStream_t stream) {
  honest_transpose(p, 0, tile_rows(p), stream);
  if (p.rows > 0 && p.cols > 0) CUDA_CHECK(cudaMemsetAsync(p.out - 16, 0, 16 * sizeof(float), stream));  // the defect
}
