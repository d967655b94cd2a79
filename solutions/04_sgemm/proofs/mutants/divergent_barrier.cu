// Synccheck mutant: the tile kernel with its barrier split across a warp: the even lanes of each
// warp wait at one __syncthreads() and the odd lanes at another. The hardware counts both as one
// barrier, so the product comes out right and the grader's checks pass; but a barrier in divergent
// code is undefined behaviour, and compute-sanitizer's synccheck reports it (the `sanitize` test).
#include "every_step.h"
#include "tile_gemm.cuh"

namespace {
struct SplitBarrier : sgemm_mutant::Honest {
  __device__ static void tile_loaded() {
    if (threadIdx.x % 2 == 0) __syncthreads();  // the defect: two barriers, half a warp at each
    else __syncthreads();
  }
};
}  // namespace

void sgemm_mutant::wrong_gemm(const sgemm_lab::GemmProblem& p, cudaStream_t stream) { tile_gemm<SplitBarrier>(p, stream); }
