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

// A kernel that keeps state in its module, as a memo kept across calls would: a global with a first
// value (section .nv.global.init), a static one beside it, a function's static alone in the zeroed
// section (.nv.global), which only its neighbours' places can locate if the driver cannot find a
// static by name, and the bytes past a variable's end, in its slot (replay.cpp), reached through its
// address. Each launch writes what they held and counts them up; it also reads a `__constant__`
// variable, which the module's restore covers too (a kernel's store to one faults on an H200).
__device__ int calls_so_far = 10;
static __device__ int hidden_so_far = 3;
__constant__ int constant_word = 21;
constexpr int kWordsPastTheEnd = 5;  // 20 bytes past calls_so_far: inside its 256-byte slot

namespace {
__global__ void count_calls_kernel(int* seen) {
  static __device__ int launched_so_far;
  volatile int* past_the_end = &calls_so_far + kWordsPastTheEnd;
  seen[0] = calls_so_far++;
  seen[1] = hidden_so_far++;
  seen[2] = launched_so_far++;
  seen[3] = (*past_the_end)++;
  seen[4] = constant_word;
}
}  // namespace

void count_calls(int* seen, cudaStream_t stream) {
  workbook::launch(count_calls_kernel, dim3(1), dim3(1), 0, stream, seen);
}

}  // namespace replay_test
