// Defence mutant [input-changed]: a correct float4 copy that also overwrites its input with zeros
// once it has read it (casting away the const). Every output is right; the caller's data is gone.
#include "every_step.h"
#include "honest_copy.cuh"

namespace {
__global__ void copy_and_clear_kernel(float* in, float* out, std::size_t n) {
  using memory_mutant::kFloat4PerThread;
  const std::size_t vectors = n / 4;
  const std::size_t first = std::size_t{blockIdx.x} * blockDim.x * kFloat4PerThread + threadIdx.x;
  float4 values[kFloat4PerThread];
#pragma unroll
  for (int i = 0; i < kFloat4PerThread; ++i)
    if (first + i * blockDim.x < vectors) values[i] = reinterpret_cast<const float4*>(in)[first + i * blockDim.x];
#pragma unroll
  for (int i = 0; i < kFloat4PerThread; ++i)
    if (first + i * blockDim.x < vectors) {
      reinterpret_cast<float4*>(out)[first + i * blockDim.x] = values[i];
      reinterpret_cast<float4*>(in)[first + i * blockDim.x] = make_float4(0, 0, 0, 0);  // the defect
    }
  if (blockIdx.x == gridDim.x - 1 && vectors * 4 + threadIdx.x < n) out[vectors * 4 + threadIdx.x] = in[vectors * 4 + threadIdx.x];
}
}  // namespace

void memory_mutant::wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  if (p.n == 0) return;
  workbook::launch(copy_and_clear_kernel, honest_grid(p.n, p.threads_per_block), dim3(p.threads_per_block),
                   p.occupancy_padding_bytes, stream, const_cast<float*>(p.in), p.out, p.n);
}
