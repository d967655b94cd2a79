// Boundary mutant: the copy is launched, through workbook::launch, on a stream of the launcher's
// own. The grader's timer only sees the stream it gave, so the copy would look free. Judged, the
// plan's launch is replayed on the timed stream, and timed like any other.
#include "every_step.h"
#include "honest_copy.cuh"

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t) {
  honest_copy(p, p.n, own_stream());  // the defect: not the stream it was given
}
