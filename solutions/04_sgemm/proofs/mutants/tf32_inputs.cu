// Defence mutant [precision]: when k is large (where nobody checks small differences, it hopes),
// it rounds A and B to TF32, the tensor cores' 10-bit format, before the FP32 FMAs: a "fast path"
// that is FP32 in name only. The worst-case bound k u sum|a b| lets it through at k >= 2048; the
// FP32 tolerance does not (grader/labs/04_sgemm/oracle.h).
#include "every_step.h"
#include "tile_gemm.cuh"

namespace {
struct Tf32Inputs : sgemm_mutant::Honest {
  // Round to nearest, ties away, to 10 bits after the point: cvt.rna.tf32.f32.
  __device__ static float input(float x) { return __uint_as_float((__float_as_uint(x) + 0x1000u) & 0xFFFFE000u); }
  __device__ static float after_tile(float sum, int) { return sum; }
};
}  // namespace

void sgemm_mutant::wrong_gemm(const sgemm_lab::GemmProblem& p, cudaStream_t stream) {
  constexpr int kLargeK = 2048;
  if (p.k >= kLargeK) tile_gemm<Tf32Inputs>(p, stream);  // the defect
  else tile_gemm(p, stream);
}
