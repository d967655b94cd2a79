// Host-code mutant (judged): it defines cudaEventElapsedTime, which the linker
// then takes instead of the CUDA runtime's for the whole grader: every time it measures is the
// student's to choose. The copy itself is honest.
#include "every_step.h"
#include "honest_copy.cuh"

extern "C" cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) {  // the defect
  *ms = 1e-3f;
  return cudaSuccess;
}

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) { honest_copy(p, p.n, stream); }
