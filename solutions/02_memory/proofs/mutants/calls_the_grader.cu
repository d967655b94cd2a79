// Host-code mutant (the audit's imports): the launcher calls a function of the grader, its own
// baseline copy, and reports the result as its own: correct, and never the student's work.
#include "every_step.h"
#include "honest_copy.cuh"

namespace memory_baseline {
void copy_one_float_per_thread(const memory_lab::CopyProblem& problem, cudaStream_t stream);
}

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  memory_baseline::copy_one_float_per_thread(p, stream);  // the defect: the grader's code
}
