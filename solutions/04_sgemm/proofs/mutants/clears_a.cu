// Defence mutant [input-changed]: a correct product that then fills A with zeros (casting away the
// const), as if A were its own scratch space. Every element of C is right; the caller's A is gone.
#include "every_step.h"
#include "tile_gemm.cuh"

void sgemm_mutant::wrong_gemm(const sgemm_lab::GemmProblem& p, cudaStream_t stream) {
  tile_gemm(p, stream);
  if (p.m > 0 && p.k > 0)  // the defect
    CUDA_CHECK(cudaMemsetAsync(const_cast<float*>(p.a), 0, std::size_t(p.m) * p.k * sizeof(float), stream));
}
