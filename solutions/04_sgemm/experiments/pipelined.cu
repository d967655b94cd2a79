// Lab 04 experiment: the cp.async pipeline (sgemm_pipelined_kernel) against 04.8 and cuBLAS, at
// 4096^3 and, with split-k, at 1000^3. Needs variants.patch (README.md); -DFMA_ORDER=0, 1, 2 and
// -DFRAG_PREFETCH=0, 1 select the FFMA order and the explicit operand prefetch of both kernels.
#include "../sgemm.cu"
#include "compare.h"

#ifndef VARIANT
#define VARIANT "default"
#endif

namespace sgemm_lab {
namespace {
// The pipeline's policy with another depth D, number of stages ST and least k per split.
template <int D, int ST, int SPLIT = 128>
struct Pipeline : PipelinedPolicy {
  static constexpr int kDepth = D, kStages = ST, kMinSplitDepth = SPLIT;
  static constexpr int kCopiesA = kTileM * kDepth / kThreads;
  static constexpr int kCopiesB = kDepth * kTileN / 4 / kThreads;
  static constexpr int kStageFloats = kDepth * (kTileM + kPad) + kDepth * kTileN;
  static constexpr int kSharedBytes = kStages * kStageFloats * int(sizeof(float));
};
}  // namespace
}  // namespace sgemm_lab

int main() {
  using namespace sgemm_lab;
  compare_at({int3{4096, 4096, 4096}, int3{1000, 1000, 1000}}, [](Comparison& compare, int3 s) {
    const GemmProblem p = compare.problem();
    compare.run(VARIANT, "04.8 double buffered", [&] { sgemm_double_buffered(p, nullptr); });
#define PIPELINE(D, ST) \
  compare.run(VARIANT, "pipe d" #D " st" #ST, [&] { launch_pipelined_kernel<Pipeline<D, ST>>(p, nullptr); });
    PIPELINE(16, 3)
    if (s.x == 4096) {
      PIPELINE(16, 4)
      PIPELINE(16, 2)
      PIPELINE(8, 3)
      PIPELINE(8, 4)
      PIPELINE(32, 2)
      PIPELINE(32, 3)
    }
  });
}
