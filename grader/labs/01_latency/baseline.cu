#include "baseline.h"

#include <stdexcept>
#include <string>

#include "workbook/launch.cuh"

namespace latency_baseline {

namespace {

// At most 32 registers, so that 16 blocks of 128 threads fit on an SM: the FMA peak is measured
// with every warp slot full (ptxas gives ILP 8 40 registers unasked).
constexpr int kThreads = 128;

template <int kIlp>
__global__ void __launch_bounds__(kThreads, 16)
    fma_chains_kernel(const float* start, float* end, unsigned chains, int length, float a, float b) {
  // 32-bit indices (the grader's chains number far fewer than 2^32): 64-bit ones would not fit in
  // 32 registers beside 8 chains.
  const unsigned threads = gridDim.x * blockDim.x;
  const unsigned first = blockIdx.x * blockDim.x + threadIdx.x;
  float x[kIlp];
#pragma unroll
  for (int c = 0; c < kIlp; ++c) x[c] = first + c * threads < chains ? start[first + c * threads] : 0.0f;
#pragma unroll 16  // a lone warp per scheduler must not spend its issue slots on the loop
  for (int i = 0; i < length; ++i) {
#pragma unroll
    for (int c = 0; c < kIlp; ++c) x[c] = fmaf(x[c], a, b);
  }
#pragma unroll
  for (int c = 0; c < kIlp; ++c)
    if (first + c * threads < chains) end[first + c * threads] = x[c];
}

}  // namespace

template <int kIlp>
void fma_chains(const latency_lab::LatencyProblem& p, cudaStream_t stream) {
  if (p.fma.chains == 0 || p.fma.chains >= (std::size_t{1} << 31) || p.fma.length < 1 ||
      p.threads_per_block != kThreads)
    throw std::invalid_argument(
        "latency_baseline::fma_chains: an empty problem, 2^31 chains or more, or blocks of other "
        "than 128 threads");
  const std::size_t threads = workbook::ceil_div(p.fma.chains, std::size_t{kIlp});
  const std::size_t blocks = workbook::ceil_div(threads, std::size_t(p.threads_per_block));
  workbook::launch(fma_chains_kernel<kIlp>, dim3(static_cast<unsigned>(blocks)), dim3(p.threads_per_block),
                   p.occupancy_padding_bytes, stream, p.fma.start, p.fma.end, static_cast<unsigned>(p.fma.chains),
                   p.fma.length, p.fma.a, p.fma.b);
}

template void fma_chains<1>(const latency_lab::LatencyProblem&, cudaStream_t);
template void fma_chains<2>(const latency_lab::LatencyProblem&, cudaStream_t);
template void fma_chains<3>(const latency_lab::LatencyProblem&, cudaStream_t);
template void fma_chains<4>(const latency_lab::LatencyProblem&, cudaStream_t);
template void fma_chains<8>(const latency_lab::LatencyProblem&, cudaStream_t);

}  // namespace latency_baseline
