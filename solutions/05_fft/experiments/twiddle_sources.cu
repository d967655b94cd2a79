// Lab 05 experiment (the H200): 05.5's kernel with its twiddles computed where they are
// used (one sincospif each, as 05.1-05.4) read from a table each block fills once (from sincospif,
// or from a quarter wave and turns), or from a
// table the compiler builds in device memory, at 1 to 8
// transforms per block, timed against cuFFT (cufftExecC2C, plan made outside the timing) in one
// process, at a batch of 65536 (05.5's bar: 512 MiB in, 512 MiB out) and 2048 (in L2, no flush).
// Every variant's output is compared with cuFFT's first (largest difference relative to the
// largest magnitude).
//
// Each time is the median of 15 calls. GB/s counts 16 KiB per transform (read + write).
// Build and run (from the repository root):
//   nvcc -std=c++20 -O3 -arch=sm_90a -Ilabs/05_fft -Iinclude solutions/05_fft/experiments/twiddle_sources.cu \
//     grader/harness/launch_log.cpp grader/harness/cuda.cpp -lcufft -o /tmp/twiddle_sources && /tmp/twiddle_sources
#include <cufft.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include "../fft.cu"
#include "workbook/median_time.h"

namespace {

// cos and sin of 2 pi m / n in double, by the compiler: a Taylor series on [0, pi/2) after the
// quadrant's symmetry.
constexpr double kPi = 3.14159265358979323846;
constexpr double series_sin(double x) {
  double term = x, sum = x;
  for (int k = 1; k < 14; ++k) sum += (term *= -x * x / ((2.0 * k) * (2.0 * k + 1)));
  return sum;
}
constexpr double series_cos(double x) {
  double term = 1, sum = 1;
  for (int k = 1; k < 14; ++k) sum += (term *= -x * x / ((2.0 * k - 1) * (2.0 * k)));
  return sum;
}
// W_n^m = exp(-2 pi i m / n), rounded to float once.
constexpr float2 exact_twiddle(int m, int n) {
  m %= n;
  const int quadrant = 4 * m / n;
  const double x = 2 * kPi * (m - quadrant * (n / 4.0)) / n;
  const double c = series_cos(x), s = series_sin(x);
  // exp(-i (q pi/2 + x)) = (-i)^q (c - i s)
  switch (quadrant) {
    case 0: return float2{float(c), float(-s)};
    case 1: return float2{float(-s), float(-c)};
    case 2: return float2{float(-c), float(s)};
    default: return float2{float(s), float(c)};
  }
}

// Every twiddle of the passes after the first, laid out as TabledTwiddles lays them out, built by
// the compiler into device memory: no block fills anything, and each pass reads it through L1.
template <int kPerThread>
struct TwiddleEntries {
  float2 v[fft_lab::TabledTwiddles<kPerThread>::kEntries];
};
template <int kPerThread>
constexpr TwiddleEntries<kPerThread> build_entries() {
  TwiddleEntries<kPerThread> entries{};
  int e = 0;
  for (int ns = kPerThread; ns < fft_lab::kPoints; ns *= fft_lab::radix_after(kPerThread, ns)) {
    const int radix = fft_lab::radix_after(kPerThread, ns);
    for (int r = 1; r < radix; ++r)
      for (int k = 0; k < ns; ++k) entries.v[e++] = exact_twiddle(k * r, ns * radix);
  }
  return entries;
}
__device__ const TwiddleEntries<16> kEntries16 = build_entries<16>();

struct GlobalTableTwiddles {
  static constexpr int kFloats = 0;
  __device__ static GlobalTableTwiddles in(float*) { return {}; }
  __device__ void fill(int, int) const {}
  template <int R, int Ns>
  __device__ float2 at(int k, int r) const {
    constexpr int kFirst = fft_lab::TabledTwiddles<16>::entries_before(Ns);
    return __ldg(&kEntries16.v[kFirst + (r - 1) * Ns + k]);
  }
};

// TabledTwiddles' table, filled from a quarter wave: the block computes W_1024^m for m < 256 (one
// sincospif per thread), and every other entry is one of those turned by a multiple of -i (a swap
// and a sign, exact).
struct QuarterFilledTwiddles {
  using Layout = fft_lab::TabledTwiddles<16>;
  static constexpr int kQuarter = fft_lab::kPoints / 4;
  static constexpr int kFloats = 2 * (Layout::kEntries + kQuarter);
  float2* table;
  __device__ static QuarterFilledTwiddles in(float* floats) { return {reinterpret_cast<float2*>(floats)}; }
  __device__ void fill(int thread, int threads) const {
    float2* const quarter = table + Layout::kEntries;
    for (int m = thread; m < kQuarter; m += threads) quarter[m] = fft_lab::twiddle(m, fft_lab::kPoints);
    __syncthreads();
    for (int e = thread; e < Layout::kEntries; e += threads) {
      int i = e, ns = 16;
      while (i >= (fft_lab::radix_after(16, ns) - 1) * ns) {
        i -= (fft_lab::radix_after(16, ns) - 1) * ns;
        ns *= fft_lab::radix_after(16, ns);
      }
      const int m = (i % ns) * (i / ns + 1) * (fft_lab::kPoints / (ns * fft_lab::radix_after(16, ns)));
      float2 w = quarter[m % kQuarter];
      for (int q = 0; q < m / kQuarter; ++q) w = fft_lab::times_minus_i(w);
      table[e] = w;
    }
  }
  template <int R, int Ns>
  __device__ float2 at(int k, int r) const {
    constexpr int kFirst = Layout::entries_before(Ns);
    return table[kFirst + (r - 1) * Ns + k];
  }
};

struct Variant {
  const char* name;
  std::function<void(const fft_lab::FftProblem&)> run;
};

template <int kTransforms, typename Twiddles>
Variant variant(const char* name) {
  return {name, [](const fft_lab::FftProblem& p) {
            fft_lab::launch_fft<16, kTransforms, fft_lab::PaddedPlanes, Twiddles>(p, nullptr, "experiment");
          }};
}

}  // namespace

int main() {
  using fft_lab::ComputedTwiddles;
  using Tabled = fft_lab::TabledTwiddles<16>;
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
  const std::size_t flush_bytes = std::size_t{256} << 20;
  char* flush = nullptr;
  cudaMalloc(&flush, flush_bytes);
  const std::vector<Variant> variants = {
      {"05.5 as committed", [](const fft_lab::FftProblem& p) { fft_lab::fft_at_cufft_speed(p, nullptr); }},
      variant<1, ComputedTwiddles>("1 a block, computed"),
      variant<4, ComputedTwiddles>("4 a block, computed"),
      variant<4, Tabled>("4 a block, table"),
      variant<2, QuarterFilledTwiddles>("2 a block, quarter"),
      variant<4, QuarterFilledTwiddles>("4 a block, quarter"),
      variant<1, GlobalTableTwiddles>("1 a block, global"),
      variant<2, GlobalTableTwiddles>("2 a block, global"),
      variant<4, GlobalTableTwiddles>("4 a block, global"),
  };
  for (int batch : {65536, 2048}) {
    const bool in_l2 = batch == 2048;
    const std::size_t n = std::size_t(batch) * fft_lab::kPoints;
    float2 *in = nullptr, *out = nullptr, *truth = nullptr;
    cudaMalloc(&in, n * sizeof(float2));
    cudaMalloc(&out, n * sizeof(float2));
    cudaMalloc(&truth, n * sizeof(float2));
    std::vector<float2> host(n);
    unsigned state = 12345;
    for (float2& x : host) {
      state = state * 1664525u + 1013904223u;
      x.x = float(state >> 8) / float(1 << 24) - 0.5f;
      state = state * 1664525u + 1013904223u;
      x.y = float(state >> 8) / float(1 << 24) - 0.5f;
    }
    cudaMemcpy(in, host.data(), n * sizeof(float2), cudaMemcpyHostToDevice);
    cufftHandle plan;
    cufftPlan1d(&plan, fft_lab::kPoints, CUFFT_C2C, batch);
    const auto cufft = [&] { cufftExecC2C(plan, reinterpret_cast<cufftComplex*>(in), reinterpret_cast<cufftComplex*>(truth), CUFFT_FORWARD); };
    cufft();
    std::vector<float2> expected(n), got(n);
    cudaMemcpy(expected.data(), truth, n * sizeof(float2), cudaMemcpyDeviceToHost);
    double largest = 0;
    for (const float2& x : expected) largest = std::max(largest, double(std::hypot(x.x, x.y)));
    const double gb = 2.0 * n * sizeof(float2) / 1e9;
    const float cufft_ms = workbook::median_ms(cufft, 15, in_l2 ? nullptr : flush, flush_bytes);
    std::printf("batch %d%s: cuFFT %.1f GB/s\n", batch, in_l2 ? " (in L2)" : "", gb / cufft_ms * 1e3);
    for (const Variant& v : variants) {
      const fft_lab::FftProblem p{in, out, batch};
      cudaMemset(out, 0, n * sizeof(float2));
      v.run(p);
      cudaMemcpy(got.data(), out, n * sizeof(float2), cudaMemcpyDeviceToHost);
      double worst = 0;
      for (std::size_t i = 0; i < n; ++i)
        worst = std::max(worst, double(std::hypot(got[i].x - expected[i].x, got[i].y - expected[i].y)));
      const float ms = workbook::median_ms([&] { v.run(p); }, 15, in_l2 ? nullptr : flush, flush_bytes);
      std::printf("  %-22s %7.1f GB/s  %6.1f%% of cuFFT  (differs from cuFFT by %.1e of the largest)\n", v.name,
                  gb / ms * 1e3, 100.0 * cufft_ms / ms, worst / largest);
    }
    cufftDestroy(plan);
    cudaFree(in);
    cudaFree(out);
    cudaFree(truth);
  }
  return 0;
}
