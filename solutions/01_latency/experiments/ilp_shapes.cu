// Lab 01: why 01.4's kernel at 4 warps per SM ran below calibrate.cu's (53% of the FMA peak
// against 80%). The same 8 chains per thread in variants, each at 1 and 4 blocks of 128 threads per
// SM (Volkov's padding), rate in TFMA/s:
//   calibrate: calibrate.cu's kernel (a compile-time count, chains started from threadIdx), one wave
//   loads:     chains loaded from and stored to memory, a run-time count (01.4's kernel), one wave
//   loads x4:  the same in 4 waves, as 01.4's grader runs it
//   unroll 16: the same, its step loop unrolled 16 times instead of 4
//   32-bit:    the same with 32-bit indices
//   then 32-bit indices unrolled 16 times (01.4's kernel and the grader's) at ILP 4, 8, 16 and 32
// Build and run (from the repository root):
//   nvcc -std=c++20 -O3 -arch=native -Iinclude solutions/01_latency/experiments/ilp_shapes.cu -o /tmp/ilp && /tmp/ilp
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "workbook/median_time.h"

namespace {

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e = (call);                                                           \
    if (e != cudaSuccess) {                                                           \
      std::printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e));           \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

constexpr int kIlp = 8;

template <int kSteps>
__global__ void calibrate_kernel(float* out, float a, float b) {
  float x[kIlp];
#pragma unroll
  for (int c = 0; c < kIlp; ++c) x[c] = threadIdx.x + c;
#pragma unroll 16
  for (int i = 0; i < kSteps; ++i) {
#pragma unroll
    for (int c = 0; c < kIlp; ++c) x[c] = fmaf(x[c], a, b);
  }
  float sum = 0;
#pragma unroll
  for (int c = 0; c < kIlp; ++c) sum += x[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

template <int kUnroll, typename Index, int kIlp = kIlp>
__global__ void loads_kernel(const float* start, float* end, Index chains, int length, float a, float b) {
  const Index threads = Index(gridDim.x) * blockDim.x;
  const Index first = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  float x[kIlp];
#pragma unroll
  for (int c = 0; c < kIlp; ++c) x[c] = first + c * threads < chains ? start[first + c * threads] : 0.0f;
#pragma unroll kUnroll
  for (int i = 0; i < length; ++i) {
#pragma unroll
    for (int c = 0; c < kIlp; ++c) x[c] = fmaf(x[c], a, b);
  }
#pragma unroll
  for (int c = 0; c < kIlp; ++c)
    if (first + c * threads < chains) end[first + c * threads] = x[c];
}

template <typename Kernel, typename... Args>
double tfma(Kernel kernel, int blocks, std::size_t padding, double fmas, Args... args) {
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(padding)));
  const float ms = workbook::median_ms([&] { kernel<<<blocks, 128, padding>>>(args...); }, 7);
  CHECK(cudaGetLastError());
  return fmas / (ms * 1e-3) / 1e12;
}

}  // namespace

int main() {
  cudaDeviceProp p{};
  CHECK(cudaGetDeviceProperties(&p, 0));
  const int sms = p.multiProcessorCount;
  const std::size_t most = std::size_t(sms) * 128 * 4 * 32 * 4;
  float *start, *end;
  CHECK(cudaMalloc(&start, most * sizeof(float)));
  CHECK(cudaMalloc(&end, most * sizeof(float)));
  CHECK(cudaMemset(start, 0, most * sizeof(float)));
  const float a = 1.0f - 1.0f / 65536, b = 1.0f / 262144;
  constexpr int kLength = 1 << 16;
  std::printf("blocks_per_sm,variant,tfma_per_s\n");
  for (int per_sm : {1, 4}) {
    const std::size_t padding = p.sharedMemPerMultiprocessor / per_sm - p.reservedSharedMemPerBlock;
    const int wave = per_sm * sms;
    const double one_wave = double(wave) * 128 * kIlp * kLength;
    std::printf("%d,calibrate,%.2f\n", per_sm, tfma(calibrate_kernel<kLength>, wave, padding, one_wave, end, a, b));
    const std::size_t chains1 = std::size_t(wave) * 128 * kIlp;
    std::printf("%d,loads,%.2f\n", per_sm,
                tfma(loads_kernel<4, std::size_t>, wave, padding, one_wave, start, end, chains1, kLength, a, b));
    std::printf("%d,loads x4,%.2f\n", per_sm,
                tfma(loads_kernel<4, std::size_t>, 4 * wave, padding, 4 * one_wave, start, end, 4 * chains1, kLength, a, b));
    std::printf("%d,unroll 16,%.2f\n", per_sm,
                tfma(loads_kernel<16, std::size_t>, 4 * wave, padding, 4 * one_wave, start, end, 4 * chains1, kLength, a, b));
    std::printf("%d,32-bit,%.2f\n", per_sm,
                tfma(loads_kernel<4, unsigned>, 4 * wave, padding, 4 * one_wave, start, end, unsigned(4 * chains1), kLength, a, b));
    const auto with_ilp = [&](auto kernel, int ilp) {
      const double fmas = 4.0 * wave * 128 * ilp * (kLength / 4);
      std::printf("%d,32-bit unroll 16 ILP %d,%.2f\n", per_sm, ilp,
                  tfma(kernel, 4 * wave, padding, fmas, start, end, unsigned(4 * wave * 128 * ilp), kLength / 4, a, b));
    };
    with_ilp(loads_kernel<16, unsigned, 4>, 4);
    with_ilp(loads_kernel<16, unsigned, 8>, 8);
    with_ilp(loads_kernel<16, unsigned, 16>, 16);
    with_ilp(loads_kernel<16, unsigned, 32>, 32);
  }
  return 0;
}
