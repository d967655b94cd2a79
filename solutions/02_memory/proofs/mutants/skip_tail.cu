// Mutant: a float4 copy, 4 per thread, that launches only the blocks whose work is whole. When n
// is not a multiple of the per-block work (threads x 4 float4), the last floats are never written.
// The grader catches it with sizes that are not multiples of a tile and NaN-poisoned outputs.
#include "every_step.h"
#include "workbook/launch.cuh"

namespace memory_mutant {

namespace {
constexpr int kFloat4PerThread = 4;

__global__ void copy_whole_blocks_kernel(const float4* in, float4* out) {
  const std::size_t first = std::size_t{blockIdx.x} * blockDim.x * kFloat4PerThread + threadIdx.x;
  float4 values[kFloat4PerThread];
#pragma unroll
  for (int i = 0; i < kFloat4PerThread; ++i) values[i] = in[first + i * blockDim.x];
#pragma unroll
  for (int i = 0; i < kFloat4PerThread; ++i) out[first + i * blockDim.x] = values[i];
}
}  // namespace

void wrong_copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  const std::size_t floats_per_block = std::size_t(p.threads_per_block) * kFloat4PerThread * 4;
  const std::size_t whole_blocks = p.n / floats_per_block;  // the defect: rounds down
  if (whole_blocks == 0) return;
  workbook::launch(copy_whole_blocks_kernel, dim3(static_cast<unsigned>(whole_blocks)), dim3(p.threads_per_block),
                   p.occupancy_padding_bytes, stream, reinterpret_cast<const float4*>(p.in),
                   reinterpret_cast<float4*>(p.out));
}

}  // namespace memory_mutant
