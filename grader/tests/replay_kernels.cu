// A "student's" launcher for the replay test (test_replay.cpp): two kernels through workbook::launch,
// the second with more than 48 KiB of dynamic shared memory, so that the judge must raise the limit.
#include <cstddef>

#include "workbook/launch.cuh"

namespace replay_test {

namespace {

__global__ void scale_kernel(float* data, std::size_t count, float factor, int2 offset) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < count) data[i] = data[i] * factor + float(offset.x - offset.y);
}

// Each block stages its part in shared memory and writes it back reversed within the block.
__global__ void reverse_in_blocks_kernel(float* data, std::size_t count) {
  extern __shared__ float staged[];
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  staged[threadIdx.x] = i < count ? data[i] : 0.0f;
  __syncthreads();
  const std::size_t mirror = blockIdx.x * std::size_t(blockDim.x) + (blockDim.x - 1 - threadIdx.x);
  if (i < count && mirror < count) data[i] = staged[blockDim.x - 1 - threadIdx.x];
}

}  // namespace

void scale_then_reverse(float* data, std::size_t count, float factor, cudaStream_t stream) {
  constexpr unsigned kThreads = 256;
  const unsigned blocks = static_cast<unsigned>((count + kThreads - 1) / kThreads);
  workbook::launch(scale_kernel, dim3(blocks), dim3(kThreads), 0, stream, data, count, factor, make_int2(5, 2));
  // 64 KiB of dynamic shared memory, of which the kernel uses 1 KiB: over the default limit.
  workbook::launch(reverse_in_blocks_kernel, dim3(blocks), dim3(kThreads), 64 * 1024, stream, data, count);
}

}  // namespace replay_test
