// Lab 03 experiment (the H200): 03.4's aligned path (64 x 64 tiles of float4) beside
// other tile shapes and block sizes, timed against cudaMemcpy of the same bytes in one process,
// at 8192 x 8192 (03.4's bar) and 16384 x 4096. Every variant's output is checked first.
//
// A variant's block stages a kRows x kCols tile of the input (kCols / 4 float4 per input row
// piece), then writes it as kCols output row pieces of kRows floats, float4 at a time: input
// pieces of 4 kCols bytes, output pieces of 4 kRows bytes. kThreads threads share both loops.
// Each time is the median of 15 calls, L2 overwritten before each. GB/s counts read + write.
// Build and run (from the repository root):
//   nvcc -std=c++20 -O3 -arch=sm_90a -Ilabs/03_transpose -Iinclude solutions/03_transpose/experiments/tile_shapes.cu \
//     grader/harness/launch_log.cpp grader/harness/cuda.cpp -o /tmp/tile_shapes && /tmp/tile_shapes
#include <cstdio>
#include <functional>
#include <vector>

#include "../transpose.cu"
#include "workbook/median_time.h"

namespace {

// rows and cols multiples of 8 (every float4 inside the matrix), as 03.4's aligned path takes them.
template <int kRows, int kCols, int kThreads, int kPad, bool kStreaming, int kGroup>
__global__ void __launch_bounds__(kThreads) tile_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kRows][kCols + kPad];
  // kGroup > 0: consecutive blocks walk strips kGroup tiles wide down the matrix, so that the
  // blocks resident at once cover a squarer region (longer runs of both input and output rows).
  unsigned bx = blockIdx.x, by = blockIdx.y;
  if (kGroup > 0 && gridDim.x % kGroup == 0) {
    const unsigned b = blockIdx.x + gridDim.x * blockIdx.y, strip = kGroup * gridDim.y;
    bx = b / strip * kGroup + b % kGroup;
    by = b % strip / kGroup;
  }
  const int r0 = by * kRows, c0 = bx * kCols;
  constexpr int kInPerRow = kCols / 4, kOutPerRow = kRows / 4;
  static_assert(kRows * kInPerRow % kThreads == 0, "every thread moves the same number of float4");
#pragma unroll
  for (int k = 0; k < kRows * kInPerRow / kThreads; ++k) {
    const int i = threadIdx.x + k * kThreads;
    const int r = i / kInPerRow, c = 4 * (i % kInPerRow);
    if (r0 + r < rows && c0 + c < cols) {
      const float4* from = reinterpret_cast<const float4*>(in + std::size_t(r0 + r) * cols + c0 + c);
      const float4 v = kStreaming ? __ldcs(from) : *from;
      tile[r][c] = v.x;
      tile[r][c + 1] = v.y;
      tile[r][c + 2] = v.z;
      tile[r][c + 3] = v.w;
    }
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kCols * kOutPerRow / kThreads; ++k) {
    const int i = threadIdx.x + k * kThreads;
    const int orow = i / kOutPerRow, oc = 4 * (i % kOutPerRow);
    if (c0 + orow < cols && r0 + oc < rows) {
      float4* to = reinterpret_cast<float4*>(out + std::size_t(c0 + orow) * rows + r0 + oc);
      const float4 v = make_float4(tile[oc][orow], tile[oc + 1][orow], tile[oc + 2][orow], tile[oc + 3][orow]);
      if (kStreaming) __stcs(to, v);
      else *to = v;
    }
  }
}

struct Variant {
  const char* name;
  std::function<void(const float*, float*, int, int)> run;
};

template <int kRows, int kCols, int kThreads, int kPad = 1, bool kStreaming = false, int kGroup = 0>
Variant tiles(const char* name) {
  return {name, [](const float* in, float* out, int rows, int cols) {
            const dim3 grid((cols + kCols - 1) / kCols, (rows + kRows - 1) / kRows);
            tile_kernel<kRows, kCols, kThreads, kPad, kStreaming, kGroup><<<grid, kThreads>>>(in, out, rows, cols);
          }};
}

}  // namespace

int main() {
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
  const std::size_t flush_bytes = std::size_t{256} << 20;
  char* flush = nullptr;
  cudaMalloc(&flush, flush_bytes);
  const std::vector<Variant> variants = {
      {"03.4 as committed", [](const float* in, float* out, int rows, int cols) {
         transpose_lab::transpose_at_copy_speed({in, out, rows, cols}, nullptr);
       }},
      tiles<64, 64, 128>("64 x 64, 128 threads"),
      tiles<64, 64, 256>("64 x 64, 256 threads"),
      tiles<64, 64, 512>("64 x 64, 512 threads"),
      tiles<64, 64, 256, 1, false, 8>("64 x 64, 256, strips of 8"),
      tiles<64, 64, 256, 1, false, 16>("64 x 64, 256, strips of 16"),
      tiles<64, 64, 256, 1, false, 32>("64 x 64, 256, strips of 32"),
      tiles<64, 64, 512, 1, false, 16>("64 x 64, 512, strips of 16"),
      tiles<64, 64, 512, 1, false, 32>("64 x 64, 512, strips of 32"),
      tiles<64, 128, 512, 1, false, 16>("64 x 128, 512, strips of 16"),
  };
  for (auto [rows, cols] : {std::pair{8192, 8192}, std::pair{16384, 4096}}) {
    const std::size_t n = std::size_t(rows) * cols;
    float *in = nullptr, *out = nullptr;
    cudaMalloc(&in, n * sizeof(float));
    cudaMalloc(&out, n * sizeof(float));
    std::vector<float> host(n), truth(n);
    for (std::size_t i = 0; i < n; ++i) host[i] = float(i % 1000003);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) truth[std::size_t(c) * rows + r] = host[std::size_t(r) * cols + c];
    cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    const double gb = 2.0 * n * sizeof(float) / 1e9;
    const float memcpy_ms =
        workbook::median_ms([&] { cudaMemcpyAsync(out, in, n * sizeof(float), cudaMemcpyDeviceToDevice); }, 15, flush, flush_bytes);
    std::printf("%d x %d: cudaMemcpy %.1f GB/s\n", rows, cols, gb / memcpy_ms * 1e3);
    for (const Variant& v : variants) {
      cudaMemset(out, 0, n * sizeof(float));
      v.run(in, out, rows, cols);
      std::vector<float> back(n);
      cudaMemcpy(back.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
      const float ms = workbook::median_ms([&] { v.run(in, out, rows, cols); }, 15, flush, flush_bytes);
      std::printf("  %-30s %7.1f GB/s  %6.1f%% of cudaMemcpy%s\n", v.name, gb / ms * 1e3, 100.0 * memcpy_ms / ms,
                  back == truth ? "" : "  WRONG OUTPUT");
    }
    cudaFree(in);
    cudaFree(out);
  }
  return 0;
}
