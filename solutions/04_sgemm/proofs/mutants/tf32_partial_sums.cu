// Defence mutant [precision]: when k is large it keeps its running sums in TF32 (10 bits after the
// point), rounding them after every 256 terms, as a kernel that parks its partial sums in a narrow
// type would. The worst-case bound k u sum|a b| lets it through at k >= 2048; the FP32 tolerance
// does not (grader/labs/04_sgemm/oracle.h).
#include "every_step.h"
#include "tile_gemm.cuh"

namespace {
struct Tf32PartialSums : sgemm_mutant::Honest {
  __device__ static float input(float x) { return x; }
  __device__ static float after_tile(float sum, int tile) {
    constexpr int kTilesPerRounding = 8;  // 256 terms
    if (tile % kTilesPerRounding != kTilesPerRounding - 1) return sum;
    return __uint_as_float((__float_as_uint(sum) + 0x1000u) & 0xFFFFE000u);
  }
};
}  // namespace

void sgemm_mutant::wrong_gemm(const sgemm_lab::GemmProblem& p, cudaStream_t stream) {
  constexpr int kLargeK = 2048;
  if (p.k >= kLargeK) tile_gemm<Tf32PartialSums>(p, stream);  // the defect
  else tile_gemm(p, stream);
}
