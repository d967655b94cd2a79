// Lab 06 experiments: the one-pass reduction (06.6) and the look-back scan (06.10) with other
// policies (threads per block, loads in flight, items per thread), and Blelloch's scan (06.7) with
// other block sizes beside the warp-shuffle scan (06.8), timed against CUB and a device copy at
// several sizes, in one process. Each variant's output is checked against CUB's first. (The run
// recorded in NOTES.md that chose the warp-transposed loads compared them with the blocked loads of
// commit a5c488c, where this file still has both.)
//
// Each time is the median of 15 calls, L2 overwritten before each (so that 2^24 ints, 64 MiB, do
// not start in the 50 MiB L2). GB/s counts the bytes the operation must move: 4n for a sum, 8n for
// a scan or a copy. Build and run (from the repository root):
//   nvcc -std=c++20 -O3 -arch=native -Ilabs/06_reduce_scan -Iinclude \
//     solutions/06_reduce_scan/experiments/variants.cu grader/harness/launch_log.cpp grader/harness/cuda.cpp \
//     -o /tmp/variants && /tmp/variants
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "../reduce_steps.cuh"
#include "../scan_steps.cuh"
#include "workbook/median_time.h"

namespace {

using reduce_scan_lab::Sum;

// Each time: the median of 15 calls, L2 overwritten before each.
float median_ms(const std::function<void()>& work, char* flush, std::size_t flush_bytes) {
  return workbook::median_ms(work, 15, flush, flush_bytes);
}

template <int kThreads_, int kVectors>
struct Many {
  static constexpr int kThreads = kThreads_;
  static constexpr int kVectorsInFlight = kVectors;
};

template <int kThreads_, int kItems_>
struct Tile {
  static constexpr int kThreads = kThreads_;
  static constexpr int kItems = kItems_;
  static constexpr int kTile = kThreads * kItems;
  static constexpr int kWarpItems = 32 * kItems;
};

struct Buffers {
  Sum* in = nullptr;
  Sum* out = nullptr;
  Sum* truth = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = std::size_t{1} << 30;
  char* flush = nullptr;
  std::size_t flush_bytes = std::size_t{256} << 20;
};

template <typename P>
void reduce_many(const Buffers& b, std::size_t n, int blocks_per_sm_cap) {
  int sms = 0, per_sm = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_scan_lab::reduce_many_kernel<P>, P::kThreads, 0);
  if (blocks_per_sm_cap > 0) per_sm = std::min(per_sm, blocks_per_sm_cap);
  const std::size_t wanted = (n / 4 + P::kThreads) / P::kThreads;
  const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>(std::size_t(sms) * per_sm, wanted));
  cudaMemsetAsync(b.out, 0, sizeof(Sum));
  reduce_scan_lab::reduce_many_kernel<P><<<blocks, P::kThreads>>>(b.in, b.out, n);
}

template <typename P>
void scan_look_back(const Buffers& b, std::size_t n) {
  const std::size_t tiles = (n + P::kTile - 1) / P::kTile;
  auto* states = static_cast<unsigned long long*>(b.workspace);
  cudaMemsetAsync(states, 0, (tiles + 1) * sizeof(unsigned long long));
  reduce_scan_lab::scan_look_back_kernel<P>
      <<<unsigned(tiles), P::kThreads>>>(b.in, b.out, n, states, reinterpret_cast<unsigned*>(states + tiles));
}

template <int kThreads_>
struct Blelloch {
  static constexpr int kThreads = kThreads_;
  static constexpr int kElements = 2 * kThreads;
};

template <typename P>
void scan_blelloch(const Buffers& b, std::size_t n) {
  reduce_scan_lab::scan_in_levels(reduce_scan_lab::scan_blelloch_kernel<P>, P::kThreads, P::kElements, b.in, b.out, n,
                                  static_cast<Sum*>(b.workspace), 0);
}

template <typename P>
int registers_of(void (*kernel)(const Sum*, Sum*, std::size_t, unsigned long long*, unsigned*)) {
  cudaFuncAttributes a{};
  cudaFuncGetAttributes(&a, kernel);
  return a.numRegs;
}

}  // namespace

int main() {
  const std::size_t max_n = std::size_t{1} << 28;
  Buffers b;
  cudaMalloc(&b.in, max_n * sizeof(Sum));
  cudaMalloc(&b.out, max_n * sizeof(Sum));
  cudaMalloc(&b.truth, max_n * sizeof(Sum));
  cudaMalloc(&b.workspace, b.workspace_bytes);
  cudaMalloc(&b.flush, b.flush_bytes);
  {
    std::vector<Sum> values(max_n);
    std::mt19937 random(7);
    for (Sum& v : values) v = random();
    cudaMemcpy(b.in, values.data(), max_n * sizeof(Sum), cudaMemcpyHostToDevice);
  }
  std::vector<Sum> got(max_n), want(max_n);

  for (int log2 : {24, 26, 28}) {
    const std::size_t n = std::size_t{1} << log2;
    const double sum_bytes = 4.0 * n, scan_bytes = 8.0 * n;
    const auto gbs = [](double bytes, float ms) { return bytes / (ms * 1e6); };

    std::size_t temp = 0;
    cub::DeviceReduce::Sum(nullptr, temp, b.in, b.truth, static_cast<int>(n));
    const auto cub_sum = [&] { cub::DeviceReduce::Sum(b.workspace, temp, b.in, b.truth, static_cast<int>(n)); };
    std::size_t scan_temp = 0;
    cub::DeviceScan::ExclusiveSum(nullptr, scan_temp, b.in, b.truth, static_cast<int>(n));
    const auto cub_scan = [&] { cub::DeviceScan::ExclusiveSum(b.workspace, scan_temp, b.in, b.truth, static_cast<int>(n)); };
    const auto copy = [&] { cudaMemcpyAsync(b.out, b.in, 4 * n, cudaMemcpyDeviceToDevice); };

    const float copy_ms = median_ms(copy, b.flush, b.flush_bytes);
    std::printf("n = 2^%d: cudaMemcpy %.0f GB/s (read + write)\n", log2, gbs(scan_bytes, copy_ms));

    // Sums.
    cub_sum();
    Sum truth_sum = 0;
    cudaMemcpy(&truth_sum, b.truth, sizeof(Sum), cudaMemcpyDeviceToHost);
    const float cub_sum_ms = median_ms(cub_sum, b.flush, b.flush_bytes);
    std::printf("  sum  CUB                        %7.0f GB/s\n", gbs(sum_bytes, cub_sum_ms));
    const auto try_sum = [&](const char* name, const std::function<void()>& variant) {
      variant();
      Sum result = 0;
      cudaMemcpy(&result, b.out, sizeof(Sum), cudaMemcpyDeviceToHost);
      const float ms = median_ms(variant, b.flush, b.flush_bytes);
      std::printf("  sum  %-26s %7.0f GB/s  %6.1f%% of CUB%s\n", name, gbs(sum_bytes, ms), 100.0 * cub_sum_ms / ms,
                  result == truth_sum ? "" : "  WRONG");
    };
    try_sum("256 threads, 4 int4 (06.6)", [&] { reduce_many<Many<256, 4>>(b, n, 0); });
    try_sum("256 threads, 2 int4", [&] { reduce_many<Many<256, 2>>(b, n, 0); });
    try_sum("512 threads, 4 int4", [&] { reduce_many<Many<512, 4>>(b, n, 0); });
    try_sum("1024 threads, 2 int4", [&] { reduce_many<Many<1024, 2>>(b, n, 0); });
    try_sum("1024 threads, 4 int4", [&] { reduce_many<Many<1024, 4>>(b, n, 0); });
    try_sum("512 threads, 2 int4", [&] { reduce_many<Many<512, 2>>(b, n, 0); });

    // Scans.
    cub_scan();
    cudaMemcpy(want.data(), b.truth, 4 * n, cudaMemcpyDeviceToHost);
    const float cub_scan_ms = median_ms(cub_scan, b.flush, b.flush_bytes);
    std::printf("  scan CUB                        %7.0f GB/s\n", gbs(scan_bytes, cub_scan_ms));
    const auto try_scan = [&](const char* name, int registers, const std::function<void()>& variant) {
      cudaMemset(b.out, 0xff, 4 * n);
      variant();
      cudaMemcpy(got.data(), b.out, 4 * n, cudaMemcpyDeviceToHost);
      const bool right = std::memcmp(got.data(), want.data(), 4 * n) == 0;
      const float ms = median_ms(variant, b.flush, b.flush_bytes);
      std::printf("  scan %-26s %7.0f GB/s  %6.1f%% of CUB  %3d registers%s\n", name, gbs(scan_bytes, ms),
                  100.0 * cub_scan_ms / ms, registers, right ? "" : "  WRONG");
    };
#define TRY_TILE(T, I)                                                                                    \
  try_scan(#T " x " #I, registers_of<Tile<T, I>>(reduce_scan_lab::scan_look_back_kernel<Tile<T, I>>), \
           [&] { scan_look_back<Tile<T, I>>(b, n); })
    TRY_TILE(256, 16);  // 06.10
    TRY_TILE(256, 8);
    TRY_TILE(128, 16);
    TRY_TILE(256, 24);
    TRY_TILE(512, 8);
#undef TRY_TILE
    try_scan("Blelloch 256 (06.8)", 0, [&] { scan_blelloch<Blelloch<256>>(b, n); });
    try_scan("Blelloch 512", 0, [&] { scan_blelloch<Blelloch<512>>(b, n); });
    try_scan("Blelloch 1024", 0, [&] { scan_blelloch<Blelloch<1024>>(b, n); });
    try_scan("Blelloch 128", 0, [&] { scan_blelloch<Blelloch<128>>(b, n); });
    try_scan("Hillis-Steele shuffles (06.7)", 0, [&] {
      reduce_scan_lab::scan_in_levels(reduce_scan_lab::scan_shuffle_kernel<256>, 256, 256, b.in, b.out, n,
                                      static_cast<Sum*>(b.workspace), 0);
    });
    try_scan("Hillis-Steele shuffles 1024", 0, [&] {
      reduce_scan_lab::scan_in_levels(reduce_scan_lab::scan_shuffle_kernel<1024>, 1024, 1024, b.in, b.out, n,
                                      static_cast<Sum*>(b.workspace), 0);
    });
  }
  const cudaError_t error = cudaDeviceSynchronize();
  std::printf("%s\n", error == cudaSuccess ? "done" : cudaGetErrorString(error));
  return error == cudaSuccess ? 0 : 1;
}
