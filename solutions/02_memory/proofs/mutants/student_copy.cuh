// The mutants that must pass the host-code audit (add_lab's AUDIT_CLEAN_MUTANTS) are written as a
// student's file is: every name of their own in an anonymous namespace, the lab's launchers alone
// visible. This is their honest copy and their launchers; each mutant defines copy(), its defect.
// Included once, by a mutant's .cu, whose anonymous namespace (and nvcc's mark on it) it joins.
#pragma once

#include "memory.h"
#include "workbook/launch.cuh"

namespace {
// Four float4 per thread, each warp's loads side by side; the last block copies the n % 4 tail.
constexpr int kVectorsPerThread = 4;
__global__ void copy_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  const std::size_t vectors = n / 4;
  const std::size_t first = std::size_t{blockIdx.x} * blockDim.x * kVectorsPerThread + threadIdx.x;
  float4 v[kVectorsPerThread];
#pragma unroll
  for (int i = 0; i < kVectorsPerThread; ++i)
    if (first + i * blockDim.x < vectors) v[i] = reinterpret_cast<const float4*>(in)[first + i * blockDim.x];
#pragma unroll
  for (int i = 0; i < kVectorsPerThread; ++i)
    if (first + i * blockDim.x < vectors) reinterpret_cast<float4*>(out)[first + i * blockDim.x] = v[i];
  if (blockIdx.x == gridDim.x - 1 && vectors * 4 + threadIdx.x < n) out[vectors * 4 + threadIdx.x] = in[vectors * 4 + threadIdx.x];
}
unsigned blocks_for(std::size_t n, int threads) {
  const std::size_t per_block = std::size_t(threads) * kVectorsPerThread * 4;
  return static_cast<unsigned>(n / per_block + 1);
}

// The mutant's copy, with its defect: every step's launcher calls it.
void copy(const memory_lab::CopyProblem& p, cudaStream_t stream);
}  // namespace

namespace memory_lab {
void copy_several_floats(const CopyProblem& p, cudaStream_t s) { copy(p, s); }
void copy_float2(const CopyProblem& p, cudaStream_t s) { copy(p, s); }
void copy_float4(const CopyProblem& p, cudaStream_t s) { copy(p, s); }
void copy_many_float4(const CopyProblem& p, cudaStream_t s) { copy(p, s); }
void copy_at_memcpy_speed(const CopyProblem& p, cudaStream_t s) { copy(p, s); }
void copy_with_copy_engine(const CopyProblem& p, cudaStream_t s) { copy(p, s); }
}  // namespace memory_lab
