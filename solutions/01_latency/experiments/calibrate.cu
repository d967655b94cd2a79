// Lab 01 calibration: the numbers the lab's steps and bars will be built on, measured on this GPU
// in one process.
//   1. The latency of a dependent FP32 FMA, in cycles: one thread, chains of n and 2n FMAs timed
//      with clock64(), the difference divided by n (so the clock reads' own cost cancels).
//   2. The latency of a global load, in cycles, against the working set: one thread chases pointers
//      through a random cyclic permutation (Sattolo's algorithm) of nodes 128 bytes apart, one per
//      cache line, after one untimed lap to warm the caches. 4 KiB to 1 GiB; then line k linked to
//      line k + 1 (lab 01's sequential_chase mutant) at 64 KiB, 4 MiB and 256 MiB.
//   3. FMA throughput against ILP (independent chains per thread) and warps per SM: one wave of
//      128-thread blocks, k per SM (Volkov's padding fixes k), every thread doing 2^16 FMAs. Volkov
//      2010, slides 16-22, redrawn; the fraction is of the best configuration measured.
// Build and run (from the repository root):
//   nvcc -std=c++20 -O3 -arch=native -Iinclude solutions/01_latency/experiments/calibrate.cu \
//     -o /tmp/calibrate && /tmp/calibrate            (--chase-only: parts 1 and 2 alone)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "workbook/median_time.h"

namespace {

#define CHECK(call)                                                                        \
  do {                                                                                     \
    cudaError_t e = (call);                                                                \
    if (e != cudaSuccess) {                                                                \
      std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e));      \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

// ---------------------------------------------------------------------------------------------
// 1. FMA latency
__global__ void fma_chain_kernel(float* value, long long* cycles, float a, float b, int n) {
  float x = *value;  // read from memory: nothing to fold at compile time
  const long long start = clock64();
#pragma unroll 128
  for (int i = 0; i < n; ++i) x = fmaf(x, a, b);
  const long long stop = clock64();
  *value = x;  // used: the chain cannot be dropped
  *cycles = stop - start;
}

double fma_latency_cycles() {
  float* value;
  long long* cycles;
  CHECK(cudaMalloc(&value, sizeof(float)));
  CHECK(cudaMalloc(&cycles, sizeof(long long)));
  auto run = [&](int n) {
    long long best = 1LL << 62;
    for (int repeat = 0; repeat < 5; ++repeat) {
      const float one = 1.0f;
      CHECK(cudaMemcpy(value, &one, sizeof(float), cudaMemcpyHostToDevice));
      fma_chain_kernel<<<1, 1>>>(value, cycles, 0.999f, 0.001f, n);
      long long c = 0;
      CHECK(cudaMemcpy(&c, cycles, sizeof(c), cudaMemcpyDeviceToHost));
      best = std::min(best, c);
    }
    return best;
  };
  const int n = 1 << 14;
  const long long one = run(n), two = run(2 * n);
  std::printf("fma chain: %d FMAs %lld cycles, %d FMAs %lld cycles\n", n, one, 2 * n, two);
  CHECK(cudaFree(value));
  CHECK(cudaFree(cycles));
  return double(two - one) / n;
}

// ---------------------------------------------------------------------------------------------
// 2. Load latency against the working set
__global__ void chase_kernel(const unsigned* next, unsigned nodes, int steps, long long* cycles, unsigned* sink) {
  unsigned p = 0;
  for (unsigned i = 0; i < nodes; ++i) p = next[p];  // one lap: the set is in whatever cache holds it
  const long long start = clock64();
  for (int i = 0; i < steps; ++i) p = next[p];
  const long long stop = clock64();
  *sink = p;
  *cycles = stop - start;
}

constexpr std::size_t kNodeBytes = 128;
constexpr std::size_t kNodeWords = kNodeBytes / sizeof(unsigned);

// `sequential`: line k links to line k + 1 instead (lab 01's mutant sequential_chase), to see what
// a predictable chase measures.
double load_latency_cycles(std::size_t working_set_bytes, unsigned* device, long long* cycles, unsigned* sink,
                           bool sequential = false) {
  const std::size_t nodes = working_set_bytes / kNodeBytes;
  std::vector<unsigned> order(nodes);
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937_64 random(working_set_bytes);
  for (std::size_t i = nodes - 1; i > 0 && !sequential; --i) {  // Sattolo: one cycle through every node
    std::uniform_int_distribution<std::size_t> pick(0, i - 1);
    std::swap(order[i], order[pick(random)]);
  }
  std::vector<unsigned> next(nodes * kNodeWords, 0u);
  for (std::size_t i = 0; i < nodes; ++i) next[order[i] * kNodeWords] = order[(i + 1) % nodes] * kNodeWords;
  CHECK(cudaMemcpy(device, next.data(), next.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
  const int steps = 1 << 16;
  long long best = 1LL << 62;
  for (int repeat = 0; repeat < 3; ++repeat) {
    chase_kernel<<<1, 1>>>(device, static_cast<unsigned>(std::min<std::size_t>(nodes, 1u << 20)), steps, cycles, sink);
    long long c = 0;
    CHECK(cudaMemcpy(&c, cycles, sizeof(c), cudaMemcpyDeviceToHost));
    best = std::min(best, c);
  }
  return double(best) / steps;
}

// ---------------------------------------------------------------------------------------------
// 3. FMA throughput against ILP and occupancy
constexpr int kFmasPerThread = 1 << 16;
constexpr int kThreads = 128;

template <int kIlp, bool kOperandsInRegisters = false>
__global__ void fma_ilp_kernel(float* out, float a_param, float b_param) {
  extern __shared__ char padding[];  // never touched: it only limits the blocks per SM
  // By default FFMA reads a from the constant bank; the variant computes a and b per thread, so that
  // every operand is a register.
  const float a = kOperandsInRegisters ? a_param + threadIdx.x * 1e-12f : a_param;
  const float b = kOperandsInRegisters ? b_param + threadIdx.x * 1e-12f : b_param;
  float x[kIlp];
#pragma unroll
  for (int c = 0; c < kIlp; ++c) x[c] = threadIdx.x + c;
  // Unrolled, so that the loop's own instructions (count, compare, branch) do not take the issue
  // slots of a warp that is alone on its scheduler; the first run of this file, without it, had
  // ILP 8 at 4 warps per SM at 80% (NOTES.md).
#pragma unroll 16
  for (int i = 0; i < kFmasPerThread / kIlp; ++i) {
#pragma unroll
    for (int c = 0; c < kIlp; ++c) x[c] = fmaf(x[c], a, b);
  }
  float sum = 0;
#pragma unroll
  for (int c = 0; c < kIlp; ++c) sum += x[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

template <int kIlp, bool kOperandsInRegisters = false>
double fmas_per_second(int blocks_per_sm, int sms, std::size_t padding, float* out) {
  auto kernel = fma_ilp_kernel<kIlp, kOperandsInRegisters>;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(padding)));
  const int blocks = blocks_per_sm * sms;
  const float ms = workbook::median_ms([&] { kernel<<<blocks, kThreads, padding>>>(out, 0.999f, 0.001f); }, 7);
  CHECK(cudaGetLastError());
  return double(blocks) * kThreads * kFmasPerThread / (ms * 1e-3);
}

}  // namespace

int main(int argc, char** argv) {
  const bool chase_only = argc > 1 && std::string(argv[1]) == "--chase-only";
  cudaDeviceProp p{};
  CHECK(cudaGetDeviceProperties(&p, 0));
  int clock_khz = 0;
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  std::printf("device: %s, %d SMs, %d KiB L1+shared per SM, %d MiB L2, max clock %d MHz\n", p.name,
              p.multiProcessorCount, int(p.sharedMemPerMultiprocessor / 1024), p.l2CacheSize >> 20, clock_khz / 1000);

  std::printf("\n1. dependent FMA latency: %.2f cycles\n", fma_latency_cycles());

  std::printf("\n2. load latency (one thread, random cycle, 128-byte nodes)\nworking_set_bytes,cycles_per_load\n");
  unsigned* chase = nullptr;
  long long* cycles = nullptr;
  unsigned* sink = nullptr;
  const std::size_t largest = std::size_t(1) << 30;
  CHECK(cudaMalloc(&chase, largest));
  CHECK(cudaMalloc(&cycles, sizeof(long long)));
  CHECK(cudaMalloc(&sink, sizeof(unsigned)));
  for (std::size_t bytes = 4096; bytes <= largest; bytes *= 2) std::printf("%zu,%.1f\n", bytes, load_latency_cycles(bytes, chase, cycles, sink));
  std::printf("the same, line k linked to line k + 1 (a predictable chase)\nworking_set_bytes,cycles_per_load\n");
  for (std::size_t bytes : {std::size_t(64) << 10, std::size_t(4) << 20, std::size_t(256) << 20})
    std::printf("%zu,%.1f\n", bytes, load_latency_cycles(bytes, chase, cycles, sink, true));
  CHECK(cudaFree(chase));
  if (chase_only) return 0;

  std::printf("\n3. FMA throughput, %d threads per block, %d FMAs per thread\n", kThreads, kFmasPerThread);
  const int sms = p.multiProcessorCount;
  float* out = nullptr;
  CHECK(cudaMalloc(&out, std::size_t(64) * sms * kThreads * sizeof(float)));
  const double theoretical = double(sms) * 128 * clock_khz * 1e3;  // 128 FP32 lanes per SM
  struct Row { int ilp, warps; double rate; };
  std::vector<Row> rows;
  for (int blocks_per_sm : {1, 2, 3, 4, 6, 8, 12, 16}) {
    // Padding so that exactly blocks_per_sm fit (the runtime reserves 1 KiB per block).
    const std::size_t padding = std::min<std::size_t>(p.sharedMemPerMultiprocessor / blocks_per_sm - p.reservedSharedMemPerBlock,
                                                      p.sharedMemPerBlockOptin);
    const int warps = blocks_per_sm * kThreads / 32;
    rows.push_back({1, warps, fmas_per_second<1>(blocks_per_sm, sms, padding, out)});
    rows.push_back({2, warps, fmas_per_second<2>(blocks_per_sm, sms, padding, out)});
    rows.push_back({3, warps, fmas_per_second<3>(blocks_per_sm, sms, padding, out)});
    rows.push_back({4, warps, fmas_per_second<4>(blocks_per_sm, sms, padding, out)});
    rows.push_back({6, warps, fmas_per_second<6>(blocks_per_sm, sms, padding, out)});
    rows.push_back({8, warps, fmas_per_second<8>(blocks_per_sm, sms, padding, out)});
  }
  // Past ILP 8 at 4 and 8 warps per SM, and every operand in a register.
  std::vector<Row> extra;
  for (int blocks_per_sm : {1, 2}) {
    const std::size_t padding = std::min<std::size_t>(p.sharedMemPerMultiprocessor / blocks_per_sm - p.reservedSharedMemPerBlock,
                                                      p.sharedMemPerBlockOptin);
    const int warps = blocks_per_sm * kThreads / 32;
    extra.push_back({12, warps, fmas_per_second<12>(blocks_per_sm, sms, padding, out)});
    extra.push_back({16, warps, fmas_per_second<16>(blocks_per_sm, sms, padding, out)});
    extra.push_back({32, warps, fmas_per_second<32>(blocks_per_sm, sms, padding, out)});
    extra.push_back({-4, warps, fmas_per_second<4, true>(blocks_per_sm, sms, padding, out)});
    extra.push_back({-8, warps, fmas_per_second<8, true>(blocks_per_sm, sms, padding, out)});
    extra.push_back({-16, warps, fmas_per_second<16, true>(blocks_per_sm, sms, padding, out)});
  }
  double best = 0;
  for (const Row& r : rows) best = std::max(best, r.rate);
  std::printf("best: %.2f TFMA/s = %.1f%% of %d SMs x 128 lanes at %d MHz\n", best / 1e12, 100 * best / theoretical, sms,
              clock_khz / 1000);
  std::printf("ilp,warps_per_sm,occupancy_percent,tfma_per_s,percent_of_best\n");
  for (const Row& r : rows)
    std::printf("%d,%d,%.2f,%.3f,%.1f\n", r.ilp, r.warps, 100.0 * r.warps / 64, r.rate / 1e12, 100 * r.rate / best);
  std::printf("more ILP (negative: the same ILP, every operand in a register)\n");
  for (const Row& r : extra)
    std::printf("%d,%d,%.2f,%.3f,%.1f\n", r.ilp, r.warps, 100.0 * r.warps / 64, r.rate / 1e12, 100 * r.rate / best);
  return 0;
}
