// Lab 04 experiment: cuBLAS's tile shape (256 x 128, 16 x 8 outputs per thread) fed by the copy
// engine from a producer warp, against 04.10 and cuBLAS in the same process.
// `warp_specialized ncu` launches 04.10 and the default variant once each at 4096^3, for the profiler.
#include "../sgemm.cu"
#include "compare.h"
#include "warp_specialized.cuh"

#include <string>

namespace sgemm_lab {
namespace {
constexpr FmaOrder kZigZag = FmaOrder::kColumnsZigZag;
constexpr Order kRows = Order::kRows, kColumns = Order::kColumns, kSnake = Order::kRowsSnake;

template <typename P, Order kOrder, bool kPrefetch = false>
void run(Comparison& compare, const GemmProblem& p, const char* name) {
  compare.run("specialized", name,
              [&] { launch_specialized_kernel<P, kOrder, kPrefetch>(p, static_cast<float*>(p.workspace), nullptr); });
}
}  // namespace
}  // namespace sgemm_lab

int main(int argc, char** argv) {
  using namespace sgemm_lab;
  const auto with_workspace = [](Comparison& compare) {
    const GemmProblem shape = compare.problem();
    return compare.problem(std::max({plan_pipeline<PipelinedPolicy, kZigZag>(shape).workspace_bytes(),
                                     plan_specialized<SpecializedPolicy<8, 8, 4>>(shape).workspace_bytes(),
                                     plan_specialized<SpecializedPolicy<16, 4>>(shape).workspace_bytes(),
                                     plan_specialized<SpecializedPolicy<32, 3>>(shape).workspace_bytes(),
                                     plan_specialized<SpecializedPolicy<32, 4>>(shape).workspace_bytes()}));
  };
  if (argc > 1 && std::string(argv[1]) == "ncu") {
    compare_at({int3{4096, 4096, 4096}}, [&](Comparison& compare, int3) {
      const GemmProblem p = with_workspace(compare);
      sgemm_packed_pipeline(p, nullptr);
      launch_specialized_kernel<SpecializedPolicy<16, 4, 4>, kRows, false>(p, static_cast<float*>(p.workspace), nullptr);
      launch_specialized_kernel<SpecializedPolicy<16, 4, 4, 4>, kRows, false>(p, static_cast<float*>(p.workspace), nullptr);
      cudaDeviceSynchronize();
    });
    return 0;
  }
  compare_at({int3{4096, 4096, 4096}, int3{8192, 8192, 8192}, int3{4095, 4097, 4093}, int3{1000, 1000, 1000}},
             [&](Comparison& compare, int3) {
    const GemmProblem p = with_workspace(compare);
    compare.run("specialized", "04.10", [&] { sgemm_packed_pipeline(p, nullptr); });
    run<SpecializedPolicy<16, 4>, kRows>(compare, p, "256x128x16, 4 stages, rows");
    run<SpecializedPolicy<16, 4, 4>, kRows>(compare, p, "256x128x16, 4 stages, rows, 4 producers");
    run<SpecializedPolicy<16, 6, 4>, kRows>(compare, p, "256x128x16, 6 stages, rows, 4 producers");
    run<SpecializedPolicy<16, 4, 4, 8>, kRows>(compare, p, "256x128x16, 4, rows, 4 prod, unroll 8");
    run<SpecializedPolicy<16, 4, 4, 4>, kRows>(compare, p, "256x128x16, 4, rows, 4 prod, unroll 4");
    run<SpecializedPolicy<32, 4, 4, 8>, kRows>(compare, p, "256x128x32, 4, rows, 4 prod, unroll 8");
    run<SpecializedPolicy<32, 4, 4, 16>, kRows>(compare, p, "256x128x32, 4, rows, 4 prod, unroll 16");
    run<SpecializedPolicy<8, 8, 4>, kRows>(compare, p, "256x128x8, 8 stages, rows, 4 producers");
    run<SpecializedPolicy<16, 4, 4>, kSnake>(compare, p, "256x128x16, 4 stages, snake, 4 producers");
    run<SpecializedPolicy<32, 4>, kRows>(compare, p, "256x128x32, 4 stages, rows");
    compare.run("specialized", "04.10 again", [&] { sgemm_packed_pipeline(p, nullptr); });
  });
  return 0;
}
