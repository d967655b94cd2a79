// Host-code mutant (judged): the launcher starts a process of its own, which would run
// beside the grading and outlive the step's verdict. The copy itself is honest.
#include <unistd.h>

#include "every_step.h"
#include "honest_copy.cuh"

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  static const pid_t child = fork();  // the defect
  if (child == 0) _exit(0);
  honest_copy(p, p.n, stream);
}
