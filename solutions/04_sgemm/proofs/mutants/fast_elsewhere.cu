// Defence mutant [ceiling]: at 4096^3, where 04.1's and 04.2's bars are judged, it moves the tile
// kernel onto a stream of its own, out of the timer's sight: the product then seems to take a few
// microseconds, far above the device's measured FP32 FMA peak, and far above every bar. Linked,
// only the ceiling stands between it and the bars, which this mutant proves; judged, the side
// stream's product is replayed on the timed one.
#include "every_step.h"
#include "tile_gemm.cuh"

void sgemm_mutant::wrong_gemm(const sgemm_lab::GemmProblem& p, cudaStream_t stream) {
  static cudaStream_t own = [] {
    cudaStream_t s = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
  }();
  constexpr double kLargeProduct = 1e10;  // multiply-adds
  tile_gemm(p, double(p.m) * p.n * p.k >= kLargeProduct ? own : stream);  // the defect
}
