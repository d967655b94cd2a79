// Mutant of 01.4: 8 independent chains per thread, but stepped one chain at a time (the chain loop
// outside the step loop), so that every FMA waits for the one before it: the right answer at the
// speed of one chain per thread. The grader must reject it on speed.
#include "given.cuh"
#include "latency.h"
#include "one_defect.h"
#include "workbook/launch.cuh"

namespace latency_lab {
namespace {
constexpr int kChainsPerThread = 8;

__global__ void chains_in_turn_kernel(const float* start, float* end, std::size_t chains, int length, float a, float b) {
  const std::size_t threads = std::size_t{gridDim.x} * blockDim.x;
  const std::size_t first = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  for (int c = 0; c < kChainsPerThread; ++c) {
    const std::size_t chain = first + c * threads;
    if (chain >= chains) break;
    float x = start[chain];
    for (int i = 0; i < length; ++i) x = fmaf(x, a, b);  // the defect: a whole chain before the next starts
    end[chain] = x;
  }
}
}  // namespace

void fma_with_ilp(const LatencyProblem& p, cudaStream_t stream) {
  validate_chains(p.fma, "fma_with_ilp");
  const std::size_t threads = workbook::ceil_div(p.fma.chains, std::size_t{kChainsPerThread});
  const std::size_t blocks = workbook::ceil_div(threads, std::size_t(p.threads_per_block));
  workbook::launch(chains_in_turn_kernel, dim3(static_cast<unsigned>(blocks)), dim3(p.threads_per_block),
                   p.occupancy_padding_bytes, stream, p.fma.start, p.fma.end, p.fma.chains, p.fma.length, p.fma.a, p.fma.b);
}
void measure_fma_latency(const LatencyProblem&, cudaStream_t) { latency_mutant::not_this_mutant("01.4"); }
void measure_load_latency(const LatencyProblem&, cudaStream_t) { latency_mutant::not_this_mutant("01.4"); }
Occupancy occupancy_of(const BlockShape&, const SmLimits&) { latency_mutant::not_this_mutant("01.4"); }
}  // namespace latency_lab
