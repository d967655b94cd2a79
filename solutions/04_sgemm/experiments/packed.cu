// Lab 04 experiment: step 04.10 (sgemm_packed_pipeline) against cuBLAS and against its own
// variants: the other FMA order, 2 and 4 stages, and what packing A alone costs. It includes the
// solution as it is (no patch). `packed ncu` launches 04.10 in both orders once each at 4096^3,
// for the profiler.
#include "../sgemm.cu"
#include "compare.h"

#include <string>

namespace sgemm_lab {
namespace {
template <int kStageCount>
struct Stages : PipelinedPolicy {
  static constexpr int kStages = kStageCount;
  static constexpr int kSharedBytes = kStages * kStageFloats * int(sizeof(float));
};

// The problem with a workspace large enough for every variant below.
GemmProblem with_workspace(Comparison& compare) {
  const GemmProblem shape = compare.problem();
  return compare.problem(std::max({sgemm_split_k_workspace_bytes(shape),
                                   plan_pipeline<PipelinedPolicy, FmaOrder::kColumnsZigZag>(shape).workspace_bytes(),
                                   plan_pipeline<PipelinedPolicy, FmaOrder::kRowByRow>(shape).workspace_bytes(),
                                   plan_pipeline<Stages<2>, FmaOrder::kColumnsZigZag>(shape).workspace_bytes(),
                                   plan_pipeline<Stages<4>, FmaOrder::kColumnsZigZag>(shape).workspace_bytes()}));
}

// Packs A as 04.10 does, alone (into the workspace, where 04.10 puts it).
void pack_a(const GemmProblem& p) {
  using P = PipelinedPolicy;
  const int k_tiles = workbook::ceil_div(p.k, P::kDepth), row_blocks = workbook::ceil_div(p.m, P::kTileM);
  float* const packed = static_cast<float*>(p.workspace);
  const auto kernel = p.k % 4 == 0 ? pack_a_kernel<P, true> : pack_a_kernel<P, false>;
  workbook::launch(kernel, dim3(row_blocks * k_tiles), dim3(P::kThreads), 0, nullptr, p.a, packed, p.m, p.k, k_tiles);
}

}  // namespace
}  // namespace sgemm_lab

int main(int argc, char** argv) {
  using namespace sgemm_lab;
  if (argc > 1 && std::string(argv[1]) == "ncu") {
    compare_at({int3{4096, 4096, 4096}}, [](Comparison& compare, int3) {
      const GemmProblem p = with_workspace(compare);
      launch_pipelined_kernel<PipelinedPolicy, FmaOrder::kColumnsZigZag>(p, static_cast<float*>(p.workspace), nullptr);
      launch_pipelined_kernel<PipelinedPolicy, FmaOrder::kRowByRow>(p, static_cast<float*>(p.workspace), nullptr);
      cudaDeviceSynchronize();
    });
    return 0;
  }
  compare_at({int3{4096, 4096, 4096}, int3{8192, 8192, 8192}, int3{4095, 4097, 4093}, int3{1000, 1000, 1000}},
             [](Comparison& compare, int3) {
    const GemmProblem p = with_workspace(compare);
    compare.run("packed", "04.9 split-k", [&] { sgemm_split_k(p, nullptr); });
    compare.run("packed", "04.10 (columns zig-zag, 3 stages)", [&] { sgemm_packed_pipeline(p, nullptr); });
    compare.run("packed", "04.10 with rows in order", [&] {
      launch_pipelined_kernel<PipelinedPolicy, FmaOrder::kRowByRow>(p, static_cast<float*>(p.workspace), nullptr);
    });
    compare.run("packed", "04.10 with 2 stages", [&] {
      launch_pipelined_kernel<Stages<2>, FmaOrder::kColumnsZigZag>(p, static_cast<float*>(p.workspace), nullptr);
    });
    compare.run("packed", "04.10 with 4 stages", [&] {
      launch_pipelined_kernel<Stages<4>, FmaOrder::kColumnsZigZag>(p, static_cast<float*>(p.workspace), nullptr);
    });
    const float pack_ms = median_ms([&] { pack_a(p); }, 20);  // no L2 flush: A is larger than L2 here
    const float step_ms = median_ms([&] { sgemm_packed_pipeline(p, nullptr); }, 20);
    std::printf("packed %5dx%5dx%5d packing A alone: %.3f ms of 04.10's %.3f ms (%.1f%%)\n", p.m, p.n, p.k, pack_ms,
                step_ms, 100.0 * pack_ms / step_ms);
    std::fflush(stdout);
  });
}
