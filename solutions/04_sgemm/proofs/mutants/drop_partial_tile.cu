// Mutant: 04.5's tile kernel whose loop over k stops at the last whole tile. When k is not a
// multiple of 32, the last k % 32 terms of every sum are missing: no NaN, no crash, every element a
// little wrong. The grader catches it with k = 17, 129, 1027, 4093, where the missing terms are far
// larger than the error bound.
#include "every_step.h"
#include "tile_gemm.cuh"

namespace {
struct WholeTilesOnly : sgemm_mutant::Honest {
  static constexpr bool kWholeTilesOnly = true;  // the defect: the partial last tile is dropped
};
}  // namespace

void sgemm_mutant::wrong_gemm(const sgemm_lab::GemmProblem& p, cudaStream_t stream) { tile_gemm<WholeTilesOnly>(p, stream); }
