// Host-code mutant (judged): the launcher registers a function to run at exit,
// after the step's verdict, where it could rewrite the rows or reports the grader left. The copy
// itself is honest.
#include <cstdlib>

#include "every_step.h"
#include "honest_copy.cuh"

namespace {
void after_the_verdict() {}
}  // namespace

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  static const int registered = std::atexit(after_the_verdict);  // the defect
  honest_copy(p, p.n + 0 * registered, stream);
}
