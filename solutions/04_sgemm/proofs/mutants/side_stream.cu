// Boundary mutant: the tile kernel, launched through workbook::launch on a stream of the launcher's
// own. The timer only sees the stream it gave; judged, the plan's launch is replayed on that stream,
// and timed like any other.
#include "every_step.h"
#include "tile_gemm.cuh"

void sgemm_mutant::wrong_gemm(const sgemm_lab::GemmProblem& p, cudaStream_t) {
  static cudaStream_t own = [] {
    cudaStream_t s = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
  }();
  tile_gemm(p, own);  // the defect: not the stream it was given
}
