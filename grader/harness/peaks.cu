#include <cuda_runtime.h>

#include "harness/peaks.h"
#include "harness/resources.h"
#include "harness/timing.h"
#include "workbook/cuda.h"
#include "workbook/launch.cuh"

namespace workbook {

namespace {

constexpr int kChains = 8;         // independent FMA chains per thread: enough to hide 4-cycle latency
constexpr int kIterations = 4096;  // FMAs per chain
constexpr int kFmaThreads = 256;

// Every chain depends only on itself, so the scheduler always has a ready FMA; the final store
// keeps the compiler from deleting the loop.
__global__ void fma_peak_kernel(float* sink, float seed) {
  float chain[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) chain[c] = seed + c + threadIdx.x;
  for (int i = 0; i < kIterations; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) chain[c] = fmaf(chain[c], 0.999999f, 1e-7f);
  }
  float sum = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) sum += chain[c];
  if (sum == 12345.678f) sink[threadIdx.x] = sum;  // never true, but the compiler cannot know
}

}  // namespace

double measure_copy_gb_per_s(std::size_t bytes, cudaStream_t stream) {
  void* from = nullptr;
  void* to = nullptr;
  CUDA_CHECK(cudaMalloc(&from, bytes));
  CUDA_CHECK(cudaMalloc(&to, bytes));
  CUDA_CHECK(cudaMemset(from, 1, bytes));
  const auto copy = [&](cudaStream_t s) { CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, s)); };
  const Timing timing = time_interleaved({copy}, stream).front();
  cudaFree(from);
  cudaFree(to);
  return 2.0 * static_cast<double>(bytes) / (timing.median_ms * 1e6);
}

double measure_fma_tflop_per_s(cudaStream_t stream) {
  float* sink = nullptr;
  CUDA_CHECK(cudaMalloc(&sink, kFmaThreads * sizeof(float)));
  const unsigned blocks = static_cast<unsigned>(device_facts().sm_count) * 8;
  const auto burn = [&](cudaStream_t s) { launch(fma_peak_kernel, dim3(blocks), dim3(kFmaThreads), 0, s, sink, 1.0f); };
  TimingOptions options;
  options.flush_l2 = false;  // no memory traffic to flush
  const Timing timing = time_interleaved({burn}, stream, options).front();
  clear_recorded_launches();
  cudaFree(sink);
  const double flops = 2.0 * kChains * kIterations * kFmaThreads * static_cast<double>(blocks);
  return flops / (timing.median_ms * 1e9);
}

const DeviceCeilings& device_ceilings() {
  static const DeviceCeilings ceilings = [] {
    int device = 0, memory_clock = 0, bus_width = 0, sms = 0, sm_clock = 0, major = 0, minor = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&memory_clock, cudaDevAttrMemoryClockRate, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&bus_width, cudaDevAttrGlobalMemoryBusWidth, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sm_clock, cudaDevAttrClockRate, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    return DeviceCeilings{memory_limit_gb_per_s(memory_clock, bus_width),
                          fma_limit_tflop_per_s(sms, fp32_lanes_per_sm(major, minor), sm_clock)};
  }();
  return ceilings;
}

const DevicePeaks& measured_peaks() {
  static const DevicePeaks peaks = [] {
    constexpr std::size_t kCopyBytes = std::size_t{512} << 20;  // ten times the H100's L2
    return DevicePeaks{measure_copy_gb_per_s(kCopyBytes, nullptr), measure_fma_tflop_per_s(nullptr)};
  }();
  return peaks;
}

}  // namespace workbook
