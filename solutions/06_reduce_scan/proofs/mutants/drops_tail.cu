// Mutant: a one-pass reduction that adds whole int4s only, and drops the n % 4 ints after the last
// one (and any before the first 16-byte boundary): right whenever n is a multiple of 4 and the
// input aligned, wrong otherwise.
#include "every_step.h"
#include "given.cuh"
#include "workbook/launch.cuh"

namespace {
__global__ void sum_whole_vectors_kernel(const uint4* in, unsigned* out, std::size_t vectors) {
  unsigned sum = 0;
  for (std::size_t v = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; v < vectors; v += std::size_t(gridDim.x) * blockDim.x) {
    const uint4 x = in[v];
    sum += x.x + x.y + x.z + x.w;
  }
  atomicAdd(out, sum);
}
}  // namespace

namespace reduce_scan_mutant {
void wrong_sum(const reduce_scan_lab::SumProblem& p, cudaStream_t s) {
  reduce_scan_lab::validate(p, "drops_tail", reduce_scan_lab::Output::kOneSum);
  CUDA_CHECK(cudaMemsetAsync(p.out, 0, sizeof(int), s));
  const auto address = reinterpret_cast<std::uintptr_t>(p.in);
  const std::size_t skip = (16 - address % 16) % 16 / 4;  // the defect: these are never added...
  const std::size_t vectors = p.n > skip ? (p.n - skip) / 4 : 0;  // ...nor the n % 4 after the last int4
  workbook::launch(sum_whole_vectors_kernel, dim3(264), dim3(256), 0, s, reinterpret_cast<const uint4*>(p.in + skip),
                   reinterpret_cast<unsigned*>(p.out), vectors);
}
void wrong_scan(const reduce_scan_lab::SumProblem&, cudaStream_t) { not_this_mutant("scans"); }
std::size_t sum_workspace_bytes(const reduce_scan_lab::SumProblem&) { return 0; }
std::size_t scan_workspace_bytes(const reduce_scan_lab::SumProblem&) { return 0; }
}  // namespace reduce_scan_mutant
