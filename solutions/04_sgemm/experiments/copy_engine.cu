// Lab 04 experiment: the copy engine (TMA) feeding 04.10's outer products, against 04.10 and
// cuBLAS in the same process. A is read in place (a 128 x 16 tile as it is in memory) or packed as
// 04.10 packs it; a stage is handed back through per-stage barriers, a __syncthreads() per tile,
// or one thread's wait and a __syncthreads(); the producer is thread 0 or rotates over the warps.
// `copy_engine ncu` launches 04.10 and the two fastest variants once each at 4096^3, for the profiler.
#include "../sgemm.cu"
#include "compare.h"
#include "copy_engine_kernels.cuh"

#include <string>

namespace sgemm_lab {
namespace {
template <int kStageCount>
struct Stages : CopyEnginePolicy {
  static constexpr int kStages = kStageCount;
  static constexpr int kBarrierBytes = 2 * kStages * int(sizeof(std::uint64_t));
  static constexpr int kSharedBytes = kStages * int(kStageBytes) + kBarrierBytes;
};

template <int kDepthK, int kStageCount>  // deeper tiles: half as many waits per FMA
struct Deep : CopyEnginePolicy {
  static constexpr int kDepth = kDepthK;
  static constexpr int kStages = kStageCount;
  static constexpr int kTileFloats = kTileM * kDepth;
  static constexpr int kStageFloats = 2 * kTileFloats;
  static constexpr unsigned kStageBytes = kStageFloats * sizeof(float);
  static constexpr int kBarrierBytes = 2 * kStages * int(sizeof(std::uint64_t));
  static constexpr int kSharedBytes = kStages * int(kStageBytes) + kBarrierBytes;
};

using P4 = CopyEnginePolicy;  // 4 stages
using P3 = Stages<3>;
constexpr FmaOrder kZigZag = FmaOrder::kColumnsZigZag, kRows = FmaOrder::kRowByRow;

// The problem with a workspace large enough for every variant below (packed A is the largest).
GemmProblem with_workspace(Comparison& compare) {
  const GemmProblem shape = compare.problem();
  return compare.problem(std::max(
      {plan_pipeline<PipelinedPolicy, kZigZag>(shape).workspace_bytes(),
       plan_copy_engine<P4, AFeed::kPacked, Handoff::kStageBarriers, kZigZag>(shape).workspace_bytes(),
       plan_copy_engine<P4, AFeed::kInPlace, Handoff::kStageBarriers, kZigZag>(shape).workspace_bytes()}));
}

template <typename P, AFeed kFeed, Handoff kHandoff, FmaOrder kOrder, bool kRotate = false>
void launch(const GemmProblem& p) {
  launch_copy_engine_kernel<P, kFeed, kHandoff, kOrder, kRotate>(p, static_cast<float*>(p.workspace), nullptr);
}

template <typename P, AFeed kFeed, Handoff kHandoff, FmaOrder kOrder, bool kRotate = false>
void run(Comparison& compare, const GemmProblem& p, const char* name) {
  compare.run("copy_engine", name, [&] { launch<P, kFeed, kHandoff, kOrder, kRotate>(p); });
}

}  // namespace
}  // namespace sgemm_lab

int main(int argc, char** argv) {
  using namespace sgemm_lab;
  if (argc > 1 && std::string(argv[1]) == "ncu") {
    compare_at({int3{4096, 4096, 4096}}, [](Comparison& compare, int3) {
      const GemmProblem p = with_workspace(compare);
      sgemm_packed_pipeline(p, nullptr);
      launch<P3, AFeed::kPacked, Handoff::kStageBarriers, kZigZag, true>(p);
      launch<P4, AFeed::kInPlace, Handoff::kStageBarriers, kRows>(p);
      cudaDeviceSynchronize();
    });
    return 0;
  }
  compare_at({int3{4096, 4096, 4096}, int3{8192, 8192, 8192}, int3{4095, 4097, 4093}, int3{1000, 1000, 1000}},
             [](Comparison& compare, int3) {
    const GemmProblem p = with_workspace(compare);
    compare.run("copy_engine", "04.10", [&] { sgemm_packed_pipeline(p, nullptr); });
    run<P4, AFeed::kInPlace, Handoff::kStageBarriers, kZigZag>(compare, p, "in place, stage barriers, 4");
    run<P4, AFeed::kInPlace, Handoff::kStageBarriers, kRows>(compare, p, "in place, stage barriers, 4, rows");
    run<P4, AFeed::kInPlace, Handoff::kBlockBarrier, kZigZag>(compare, p, "in place, block barrier, 4");
    run<Deep<32, 3>, AFeed::kInPlace, Handoff::kStageBarriers, kRows>(compare, p, "in place, depth 32, 3, rows");
    run<P4, AFeed::kPacked, Handoff::kStageBarriers, kZigZag>(compare, p, "packed, stage barriers, 4");
    run<P4, AFeed::kPacked, Handoff::kBlockBarrier, kZigZag>(compare, p, "packed, block barrier, 4");
    run<P3, AFeed::kPacked, Handoff::kBlockBarrier, kZigZag>(compare, p, "packed, block barrier, 3");
    run<P4, AFeed::kPacked, Handoff::kOneWaiter, kZigZag>(compare, p, "packed, one waiter, 4");
    run<P4, AFeed::kPacked, Handoff::kPolling, kZigZag>(compare, p, "packed, polling, 4");
    run<P3, AFeed::kPacked, Handoff::kBlockBarrier, kZigZag, true>(compare, p, "packed, block barrier, 3, rotating");
    run<P3, AFeed::kPacked, Handoff::kStageBarriers, kZigZag, true>(compare, p, "packed, stage barriers, 3, rotating");
  });
  return 0;
}
