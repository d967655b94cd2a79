// Defence mutant [ceiling]: honest at 8192 x 8192, where 03.1's and 03.2's bars are judged, but at
// an odd number of rows (8191 x 8191, a row nobody's bar judges there) it moves the transpose onto
// a stream of its own, out of the timer's sight, and that row shows several times cudaMemcpy's
// speed. Linked, only the ceiling stands between it and that row, which this mutant proves; judged,
// the side stream's transpose is replayed on the timed one.
#include "every_step.h"
#include "honest_transpose.cuh"

void transpose_mutant::wrong_transpose(const transpose_lab::TransposeProblem& p, cudaStream_t stream) {
  static cudaStream_t own = [] {
    cudaStream_t s = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
  }();
  honest_transpose(p, 0, tile_rows(p), p.rows % 2 == 1 ? own : stream);  // the defect
}
