// Defence mutant [guard]: a correct product whose launcher also clears the 16 floats just before C
// (a row offset of one too few, say). Every element of C is right; the memory in front of it is not.
#include "every_step.h"
#include "tile_gemm.cuh"

void sgemm_mutant::wrong_gemm(const sgemm_lab::GemmProblem& p, cudaStream_t stream) {
  tile_gemm(p, stream);
  if (p.m > 0 && p.n > 0) CUDA_CHECK(cudaMemsetAsync(p.c - 16, 0, 16 * sizeof(float), stream));  // the defect
}
