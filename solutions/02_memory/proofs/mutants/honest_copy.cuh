// The honest part of lab 02's defence mutants: a float4 copy, four per thread, with its tail: at
// 6.25% occupancy it clears the bars of 02.1 to 02.3. Each mutant's defect is in how it launches
// this kernel (which stream, how often, with what), never in the kernel, so that the one defence
// it is tested against is the only thing between it and the bars.
#pragma once

#include <algorithm>

#include "memory.h"
#include "workbook/launch.cuh"

namespace memory_mutant {

constexpr int kFloat4PerThread = 4;

// One block's share of the copy: four float4 a thread, and the tail in the last block.
__device__ __forceinline__ void copy_this_blocks_share(const float* __restrict__ in, float* __restrict__ out,
                                                       std::size_t n) {
  const std::size_t vectors = n / 4;
  const std::size_t first = std::size_t{blockIdx.x} * blockDim.x * kFloat4PerThread + threadIdx.x;
  float4 values[kFloat4PerThread];
#pragma unroll
  for (int i = 0; i < kFloat4PerThread; ++i)
    if (first + i * blockDim.x < vectors) values[i] = reinterpret_cast<const float4*>(in)[first + i * blockDim.x];
#pragma unroll
  for (int i = 0; i < kFloat4PerThread; ++i)
    if (first + i * blockDim.x < vectors) reinterpret_cast<float4*>(out)[first + i * blockDim.x] = values[i];
  if (blockIdx.x == gridDim.x - 1 && vectors * 4 + threadIdx.x < n) out[vectors * 4 + threadIdx.x] = in[vectors * 4 + threadIdx.x];
}

__global__ void honest_copy_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  copy_this_blocks_share(in, out, n);
}

inline dim3 honest_grid(std::size_t n, int threads_per_block) {
  const std::size_t per_block = std::size_t(threads_per_block) * kFloat4PerThread * 4;
  return dim3(static_cast<unsigned>(std::max<std::size_t>(1, (n + per_block - 1) / per_block)));
}

// The first n floats of p, on `stream`, through workbook::launch at the problem's occupancy.
inline void honest_copy(const memory_lab::CopyProblem& p, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  workbook::launch(honest_copy_kernel, honest_grid(n, p.threads_per_block), dim3(p.threads_per_block),
                   p.occupancy_padding_bytes, stream, p.in, p.out, n);
}

// A stream of the mutant's own, which does not wait for (or make wait) the one it was given.
inline cudaStream_t own_stream() {
  static cudaStream_t stream = [] {
    cudaStream_t s = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
  }();
  return stream;
}

}  // namespace memory_mutant
