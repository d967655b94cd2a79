#include "baseline.h"

#include "workbook/launch.cuh"

namespace memory_baseline {

namespace {

__global__ void copy_one_float_per_thread_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

}  // namespace

void copy_one_float_per_thread(const memory_lab::CopyProblem& p, cudaStream_t stream) {
  if (p.n == 0) return;
  const std::size_t blocks = workbook::ceil_div(p.n, std::size_t(p.threads_per_block));
  workbook::launch(copy_one_float_per_thread_kernel, dim3(static_cast<unsigned>(blocks)), dim3(p.threads_per_block),
                   p.occupancy_padding_bytes, stream, p.in, p.out, p.n);
}

}  // namespace memory_baseline
