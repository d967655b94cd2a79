// Mutant: 04.5's tile kernel (8 outputs per thread, 32 x 4 threads) without the __syncthreads()
// between loading the tiles and using them. Each warp loads 8 of the 32 rows of B's tile and then
// reads all 32: the other warps' rows may not be there yet. Wrong somewhere on most shapes, and
// compute-sanitizer's racecheck reports it every time (the `sanitize` test).
#include "every_step.h"
#include "tile_gemm.cuh"

namespace {
struct NoBarrier : sgemm_mutant::Honest {
  __device__ static void tile_loaded() {}  // the defect: no __syncthreads() here
};
}  // namespace

void sgemm_mutant::wrong_gemm(const sgemm_lab::GemmProblem& p, cudaStream_t stream) { tile_gemm<NoBarrier>(p, stream); }
