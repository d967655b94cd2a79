// Host-code mutant (judged): a global object whose constructor runs before
// main(), before any step is graded, where it could change the grader's state or its files. The
// copy itself is honest.
#include "every_step.h"
#include "honest_copy.cuh"

namespace {
struct RunsFirst {
  RunsFirst() { ++calls; }  // the defect: code of the student's that runs before the grading
  int calls = 0;
};
RunsFirst runs_first;
}  // namespace

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  honest_copy(p, p.n + 0 * runs_first.calls, stream);
}
