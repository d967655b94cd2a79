// Boundary mutant: the padded transpose, launched through workbook::launch on a stream of the
// launcher's own. The timer only sees the stream it gave; judged, the plan's launch is replayed on
// that stream, and timed like any other.
#include "every_step.h"
#include "honest_transpose.cuh"

void transpose_mutant::wrong_transpose(const transpose_lab::TransposeProblem& p, cudaStream_t) {
  static cudaStream_t own = [] {
    cudaStream_t s = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
  }();
  honest_transpose(p, 0, tile_rows(p), own);  // the defect: not the stream it was given
}
