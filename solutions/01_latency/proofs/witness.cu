// The witness of 01.4: see witness.h. kIlp chains per thread stepped together, the step loop
// unrolled 16 times and 32-bit indices, the two things the handout says the H100 measured.
#include "witness.h"
#include "harness/witness_registry.h"

#include <stdexcept>
#include <string>

#include "given.cuh"  // validate_chains(), validate_launch_shape()
#include "workbook/launch.cuh"

namespace latency_witness {

namespace {

constexpr int kIlp = 4;  // 4 cycles of latency x 1 FMA a cycle

__global__ void fma_chains_kernel(const float* start, float* end, unsigned chains, int length, float a, float b) {
  const unsigned threads = gridDim.x * blockDim.x;
  const unsigned thread = blockIdx.x * blockDim.x + threadIdx.x;
  float x[kIlp];
  for (int c = 0; c < kIlp; ++c) x[c] = thread + c * threads < chains ? start[thread + c * threads] : 0.0f;
#pragma unroll 16
  for (int i = 0; i < length; ++i)
    for (int c = 0; c < kIlp; ++c) x[c] = fmaf(x[c], a, b);
  for (int c = 0; c < kIlp; ++c)
    if (thread + c * threads < chains) end[thread + c * threads] = x[c];
}

}  // namespace

void fma_with_ilp(const latency_lab::LatencyProblem& p, cudaStream_t stream) {
  latency_lab::validate_chains(p.fma, "witness of 01.4");
  latency_lab::validate_launch_shape(p, "witness of 01.4");
  if (p.fma.chains >= (std::size_t{1} << 31)) throw std::invalid_argument("witness of 01.4: fewer than 2^31 chains");
  const std::size_t threads = workbook::ceil_div(p.fma.chains, std::size_t{kIlp});
  const std::size_t blocks = workbook::ceil_div(threads, std::size_t(p.threads_per_block));
  workbook::launch(fma_chains_kernel, dim3(static_cast<unsigned>(blocks)), dim3(p.threads_per_block),
                   p.occupancy_padding_bytes, stream, p.fma.start, p.fma.end, static_cast<unsigned>(p.fma.chains),
                   p.fma.length, p.fma.a, p.fma.b);
}

}  // namespace latency_witness

// Linking this file registers each witness under its step's id (grader/harness/witness_registry.h): only
// the solution's grader links it.
namespace {
const bool registered = workbook::register_witnesses<latency_lab::LatencyProblem>({
    {"01.4", {latency_witness::fma_with_ilp}}});
}  // namespace
