// Device-trace mutant [outside-timer]: a quarter of the copy is launched with <<<>>> and no stream,
// onto the legacy default stream, beside the stream the launcher was given. The grader's stream is
// non-blocking, so nothing orders the two: the quarter runs while the grader's gate still holds the
// given stream, before the start event, and is never timed. No launch record names it, and it
// finishes long before the call's stop event, so neither the launch log nor the second clock sees
// it; the device trace sees a kernel on another stream. Written as a student's file, it passes the
// host-code audit: a <<<>>> launch is in every lab's common set.
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

void copy(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  const std::size_t quarter = p.n / 16 * 4;  // whole float4s, so that the rest starts 16-byte aligned
  if (quarter > 0) copy_kernel<<<blocks_for(quarter, 256), 256>>>(p.in, p.out, quarter);  // the defect: stream 0
  if (p.n > quarter)
    workbook::launch(copy_kernel, dim3(blocks_for(p.n - quarter, p.threads_per_block)), dim3(p.threads_per_block),
                     p.occupancy_padding_bytes, stream, p.in + quarter, p.out + quarter, p.n - quarter);
}
}  // namespace

namespace memory_lab {
void copy_several_floats(const CopyProblem& p, cudaStream_t s) { copy(p, s); }
void copy_float2(const CopyProblem& p, cudaStream_t s) { copy(p, s); }
void copy_float4(const CopyProblem& p, cudaStream_t s) { copy(p, s); }
void copy_many_float4(const CopyProblem& p, cudaStream_t s) { copy(p, s); }
void copy_at_memcpy_speed(const CopyProblem& p, cudaStream_t s) { copy(p, s); }
void copy_with_copy_engine(const CopyProblem& p, cudaStream_t s) { copy(p, s); }
}  // namespace memory_lab
