// Mutant: 01.4's chains, eight per thread side by side (the step's idea, done right), but only at
// the chain counts the grader used to check (a fixed list) and the timed ones, which are whole
// multiples of 4,096 chains (or five more); at any other count the last chain is never computed.
// Only counts drawn from the seed (drawn_sizes.h) can catch it.
#include <algorithm>
#include <array>

#include "given.cuh"
#include "latency.h"
#include "one_defect.h"
#include "workbook/launch.cuh"

namespace latency_lab {
namespace {
constexpr int kChainsPerThread = 8;

__global__ void chains_side_by_side_kernel(const float* start, float* end, std::size_t chains, int length, float a, float b) {
  const std::size_t threads = std::size_t{gridDim.x} * blockDim.x;
  const std::size_t first = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  float x[kChainsPerThread];
#pragma unroll
  for (int c = 0; c < kChainsPerThread; ++c) x[c] = first + c * threads < chains ? start[first + c * threads] : 0.0f;
  for (int i = 0; i < length; ++i)
#pragma unroll
    for (int c = 0; c < kChainsPerThread; ++c) x[c] = fmaf(x[c], a, b);
#pragma unroll
  for (int c = 0; c < kChainsPerThread; ++c)
    if (first + c * threads < chains) end[first + c * threads] = x[c];
}

bool in_the_old_list(std::size_t chains) {
  constexpr std::array<std::size_t, 16> kFixed = {1, 2, 31, 32, 33, 1000, 100003, 127, 128, 129, 1023, 1024, 1025, 2047, 2048, 2049};
  if (std::find(kFixed.begin(), kFixed.end(), chains) != kFixed.end()) return true;
  return chains % 4096 == 0 || chains % 4096 == 5;  // the timed counts (SMs x 128 x 32) and the case just past them
}
}  // namespace

void fma_with_ilp(const LatencyProblem& p, cudaStream_t stream) {
  validate_chains(p.fma, "fma_with_ilp");
  const std::size_t chains = in_the_old_list(p.fma.chains) ? p.fma.chains : p.fma.chains - 1;  // the defect
  const std::size_t threads = workbook::ceil_div(p.fma.chains, std::size_t{kChainsPerThread});
  const std::size_t blocks = workbook::ceil_div(threads, std::size_t(p.threads_per_block));
  workbook::launch(chains_side_by_side_kernel, dim3(static_cast<unsigned>(blocks)), dim3(p.threads_per_block),
                   p.occupancy_padding_bytes, stream, p.fma.start, p.fma.end, chains, p.fma.length, p.fma.a, p.fma.b);
}
void measure_fma_latency(const LatencyProblem&, cudaStream_t) { latency_mutant::not_this_mutant("01.4"); }
void measure_load_latency(const LatencyProblem&, cudaStream_t) { latency_mutant::not_this_mutant("01.4"); }
Occupancy occupancy_of(const BlockShape&, const SmLimits&) { latency_mutant::not_this_mutant("01.4"); }
}  // namespace latency_lab
