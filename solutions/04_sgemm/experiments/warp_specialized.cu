// Lab 04 experiment: 04.11 (cuBLAS's 256 x 128 tile, 16 x 8 outputs per thread, fed by the copy
// engine from producer warps) with other depths, stage counts and producers, against 04.10 and
// cuBLAS in the same process. Build it for sm_90a: with plain sm_90 the producer warpgroup cannot
// give its registers away, and every variant runs at 168 registers a thread.
// `warp_specialized ncu` launches 04.10 and 04.11 once each at 4096^3, for the profiler.
#include "../sgemm.cu"
#include "compare.h"

#include <string>

namespace sgemm_lab {
namespace {
template <typename P>
void run(Comparison& compare, const GemmProblem& p, const char* name) {
  compare.run("specialized", name, [&] { launch_warp_specialized<P>(p, static_cast<float*>(p.workspace), nullptr); });
}

// The problem with a workspace large enough for every variant below (the shallowest packs most).
GemmProblem with_workspace(Comparison& compare) {
  const GemmProblem shape = compare.problem();
  return compare.problem(std::max({plan_pipeline<PipelinedPolicy, FmaOrder::kColumnsZigZag>(shape).workspace_bytes(),
                                   plan_warp_specialized<SpecializedPolicy<8, 8, 4>>(shape).workspace_bytes(),
                                   plan_warp_specialized<SpecializedPolicy<16, 4, 4>>(shape).workspace_bytes(),
                                   plan_warp_specialized<SpecializedPolicy<32, 4, 4>>(shape).workspace_bytes()}));
}
}  // namespace
}  // namespace sgemm_lab

int main(int argc, char** argv) {
  using namespace sgemm_lab;
  if (argc > 1 && std::string(argv[1]) == "ncu") {
    compare_at({int3{4096, 4096, 4096}}, [](Comparison& compare, int3) {
      const GemmProblem p = with_workspace(compare);
      sgemm_packed_pipeline(p, nullptr);
      sgemm_warp_specialized(p, nullptr);
      cudaDeviceSynchronize();
    });
    return 0;
  }
  compare_at({int3{4096, 4096, 4096}, int3{8192, 8192, 8192}, int3{4095, 4097, 4093}, int3{1000, 1000, 1000}},
             [](Comparison& compare, int3) {
    const GemmProblem p = with_workspace(compare);
    compare.run("specialized", "04.10", [&] { sgemm_packed_pipeline(p, nullptr); });
    compare.run("specialized", "04.11 (depth 16, 4 stages, 4 producers)", [&] { sgemm_warp_specialized(p, nullptr); });
    run<SpecializedPolicy<16, 4, 1>>(compare, p, "depth 16, 4 stages, 1 producer warp");
    run<SpecializedPolicy<16, 3, 4>>(compare, p, "depth 16, 3 stages, 4 producers");
    run<SpecializedPolicy<16, 6, 4>>(compare, p, "depth 16, 6 stages, 4 producers");
    run<SpecializedPolicy<8, 8, 4>>(compare, p, "depth 8, 8 stages, 4 producers");
    run<SpecializedPolicy<32, 4, 4>>(compare, p, "depth 32, 4 stages, 4 producers");
    run<SpecializedPolicy<32, 4, 1>>(compare, p, "depth 32, 4 stages, 1 producer warp");
    compare.run("specialized", "04.10 again", [&] { sgemm_packed_pipeline(p, nullptr); });
  });
  return 0;
}
