// Lab 02 experiment: when does a copy-engine ring that reloads a stage before its store has read it
// (the mutant stage_reused_before_read) copy wrongly? Runs the mutant's kernel and its control on
// 256 MiB, with `out` in device memory and in mapped pinned host memory (a slow destination, so
// that stores drain slowly), and counts wrong floats over several calls.
// Build: nvcc -std=c++20 -O3 -arch=sm_90 -Ilabs/02_memory -Iinclude -Isolutions/02_memory/proofs/mutants \
//          solutions/02_memory/experiments/stage_reuse.cu -o /tmp/stage_reuse
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "copy_engine_ring.cuh"

namespace {
__global__ void fill(float* a, std::size_t n, unsigned salt) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    a[i] = static_cast<float>((i * 2654435761u) ^ salt);
}
__global__ void count_wrong(const float* a, const float* b, std::size_t n, unsigned long long* wrong) {
  unsigned long long mine = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    mine += a[i] != b[i];
  if (mine) atomicAdd(wrong, mine);
}

template <bool kWaitsForRead>
void trial(const char* what, const float* in, float* out, std::size_t n, int threads, unsigned long long* wrong) {
  using namespace memory_mutant;
  constexpr auto kernel = ring_copy_kernel<true, kWaitsForRead>;
  const std::size_t shared = 232448;  // one block per SM, as the grader's padding makes it
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared));
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  unsigned long long total = 0;
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  float ms = 0;
  for (int call = 0; call < 5; ++call) {
    fill<<<1024, 256>>>(const_cast<float*>(in), n, call * 7919u);
    cudaMemset(out, 0xff, n * sizeof(float));
    cudaMemset(wrong, 0, sizeof *wrong);
    cudaEventRecord(start);
    kernel<<<sms, threads, shared>>>(in, out, n);
    cudaEventRecord(stop);
    count_wrong<<<1024, 256>>>(in, out, n, wrong);
    unsigned long long w = 0;
    cudaMemcpy(&w, wrong, sizeof w, cudaMemcpyDeviceToHost);
    cudaEventElapsedTime(&ms, start, stop);
    total += w;
  }
  const cudaError_t e = cudaGetLastError();
  std::printf("%-52s %-12s wrong floats over 5 calls: %llu  (last call %.3f ms, %s)\n", what,
              kWaitsForRead ? "control" : "mutant", total, ms, cudaGetErrorString(e));
}
}  // namespace

int main() {
  for (std::size_t n : {std::size_t{1} << 26, std::size_t{1} << 22}) {
    float *in = nullptr, *out = nullptr, *host_out = nullptr, *mapped_out = nullptr;
    unsigned long long* wrong = nullptr;
    cudaMalloc(&in, n * 4);
    cudaMalloc(&out, n * 4);
    cudaMalloc(&wrong, sizeof *wrong);
    cudaHostAlloc(&host_out, n * 4, cudaHostAllocMapped);
    cudaHostGetDevicePointer(&mapped_out, host_out, 0);
    std::printf("n = %zu floats\n", n);
    trial<false>("out in device memory, 32 threads", in, out, n, 32, wrong);
    trial<true>("out in device memory, 32 threads", in, out, n, 32, wrong);
    trial<false>("out in mapped host memory, 32 threads", in, mapped_out, n, 32, wrong);
    trial<true>("out in mapped host memory, 32 threads", in, mapped_out, n, 32, wrong);
    cudaFree(in);
    cudaFree(out);
    cudaFree(wrong);
    cudaFreeHost(host_out);
  }
}
