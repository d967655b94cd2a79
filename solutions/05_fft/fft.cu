// Lab 05_fft, reference solution: a batched 1024-point FFT, more outputs per thread, to cuFFT speed.
//
// One thread block transforms 1024 points. Each thread holds P of them in registers and computes
// small DFTs there; between passes the points are exchanged through shared memory (a Stockham
// formulation, so no bit reversal is ever needed). The more points a thread holds, the larger the
// DFTs in registers and the fewer exchanges (Volkov 2010, part V):
//   05.1  P = 2:  ten radix-2 passes, nine exchanges, 512 threads per transform
//   05.2  P = 4:  five radix-4 passes, four exchanges
//   05.3  P = 8:  radix 8, 8, 8 and 2, three exchanges
//   05.4  P = 16: radix 16, 16 and 4, two exchanges, 64 threads per transform
//   05.5  P = 16, four transforms per block, shared memory split into padded real and imaginary
//         planes (no bank conflicts): cuFFT's speed
#include <cstddef>
#include <type_traits>
#include <utility>

#include "fft.h"
#include "given.cuh"  // given: validate(), cadd, csub, cmul, times_minus_i, twiddle
#include "workbook/launch.cuh"

namespace fft_lab {

namespace {

// ---------------------------------------------------------------------------------------------
// Small DFTs in registers

// cos(2 pi m / 16) for m in [0, 8), and sin: W_16^m = (cos, -sin). A switch, not an array, so that
// the value folds into an immediate once m is known.
__device__ __forceinline__ float cos_16th(int m) {
  switch (m) {
    case 0: return 1.0f;
    case 1: return 0.923879533f;
    case 2: return 0.707106781f;
    case 3: return 0.382683432f;
    case 4: return 0.0f;
    case 5: return -0.382683432f;
    case 6: return -0.707106781f;
    default: return -0.923879533f;
  }
}
__device__ __forceinline__ float sin_16th(int m) { return cos_16th(m < 4 ? 4 - m : m - 4); }  // sin x = cos(x - pi/2)

// a * W_16^m for a compile-time m (after unrolling) in [0, 8): m = 0 and m = 4 need no multiply.
__device__ __forceinline__ float2 times_w16(float2 a, int m) {
  if (m == 0) return a;
  if (m == 4) return times_minus_i(a);
  return cmul(a, make_float2(cos_16th(m), -sin_16th(m)));
}

__host__ __device__ constexpr int bit_reversed(int k, int bits) {
  int reversed = 0;
  for (int b = 0; b < bits; ++b) reversed |= ((k >> b) & 1) << (bits - 1 - b);
  return reversed;
}

__host__ __device__ constexpr int log2_of(int n) { return n <= 1 ? 0 : 1 + log2_of(n / 2); }

// f(std::integral_constant<int, 0>{}), ..., f(std::integral_constant<int, N - 1>{}): a loop that is
// unrolled by construction, so that every register index in it is a constant. (#pragma unroll is a
// request, and in a large kernel the compiler may decline it and move the array to local memory.)
template <typename F, int... Is>
__device__ __forceinline__ void static_for_each(F&& f, std::integer_sequence<int, Is...>) {
  (f(std::integral_constant<int, Is>{}), ...);
}
template <int N, typename F>
__device__ __forceinline__ void static_for(F&& f) {
  static_for_each(f, std::make_integer_sequence<int, N>{});
}

// The R-point DFT of v[0..R), in place, natural order in and out. Radix-2 decimation in frequency
// leaves the result in bit-reversed order; with every index known at compile time, putting it
// back in order is a renaming of registers, not a data movement.
template <int R>
__device__ __forceinline__ void dft_in_registers(float2* v) {
  static_assert(R >= 2 && R <= 16 && (R & (R - 1)) == 0, "a power of two up to 16: the constants are W_16's");
  constexpr int kLevels = log2_of(R);
  static_for<kLevels>([&](auto level) {
    constexpr int kHalf = R >> (decltype(level)::value + 1);  // the butterflies' span at this level
    static_for<R / 2>([&](auto butterfly) {
      constexpr int i = decltype(butterfly)::value % kHalf;
      constexpr int top = (decltype(butterfly)::value / kHalf) * 2 * kHalf + i;
      const float2 a = v[top], b = v[top + kHalf];
      v[top] = cadd(a, b);
      v[top + kHalf] = times_w16(csub(a, b), i * (8 / kHalf));  // W_{2 half}^i = W_16^{8 i / half}
    });
  });
  float2 natural[R];
  static_for<R>([&](auto k) { natural[decltype(k)::value] = v[bit_reversed(decltype(k)::value, kLevels)]; });
  static_for<R>([&](auto k) { v[decltype(k)::value] = natural[decltype(k)::value]; });
}

// ---------------------------------------------------------------------------------------------
// Where the points wait between passes

// One transform's 1024 points as float2: the simple layout of 05.1-05.4. A warp writing points
// Ns apart, Ns a multiple of 16, hits the same banks with many of its lanes.
struct InterleavedPoints {
  float2* points;
  static constexpr int kFloats = 2 * kPoints;
  __device__ static InterleavedPoints in(float* floats) { return {reinterpret_cast<float2*>(floats)}; }
  __device__ void store(int i, float2 v) const { points[i] = v; }
  __device__ float2 load(int i) const { return points[i]; }
};

// 05.5: real and imaginary parts in separate planes, one float of padding after every 32. A warp's
// 32 lanes writing 16 points apart (the first exchange) then land in 32 different banks, and a
// warp reading 32 consecutive points reads each plane conflict-free.
struct PaddedPlanes {
  float* planes;
  static constexpr int kPlane = kPoints + kPoints / 32;
  static constexpr int kFloats = 2 * kPlane;
  __device__ static PaddedPlanes in(float* floats) { return {floats}; }
  __device__ static int padded(int i) { return i + i / 32; }
  __device__ void store(int i, float2 v) const {
    planes[padded(i)] = v.x;
    planes[kPlane + padded(i)] = v.y;
  }
  __device__ float2 load(int i) const { return make_float2(planes[padded(i)], planes[kPlane + padded(i)]); }
};

// ---------------------------------------------------------------------------------------------
// Where the twiddles come from

// The radix of the pass after Ns points have been combined: P while P more fit, then what is left.
__host__ __device__ constexpr int radix_after(int per_thread, int ns) {
  return kPoints / ns >= per_thread ? per_thread : kPoints / ns;
}

// 05.1-05.4: each twiddle computed where it is used, by its own sincospif.
struct ComputedTwiddles {
  static constexpr int kFloats = 0;  // no shared memory
  __device__ static ComputedTwiddles in(float*) { return {}; }
  __device__ void fill(int, int) const {}
  template <int R, int Ns>
  __device__ float2 at(int k, int r) const { return twiddle(k * r, Ns * R); }
};

// 05.5: every twiddle the passes use, W_{Ns R}^{k r} for k < Ns and 0 < r < R, in a table in shared
// memory that the block's threads fill together before the first exchange, and that its
// transforms share. A pass's entries are r-major, so that a warp's 32 lanes (consecutive k) read
// consecutive entries. The values are the same sincospif results as ComputedTwiddles', computed
// once per block instead of once per use: 1008 calls for four transforms, where each transform's
// 64 threads made 1728. (On the H200, whose memory leaves each transform fewer cycles, those calls
// were what kept the kernel under cuFFT's speed: NOTES.md.)
template <int kPerThread>
struct TabledTwiddles {
  // The table's entries for the passes after the first: (R - 1) Ns for the pass at each Ns.
  __host__ __device__ static constexpr int entries_before(int ns) {
    int entries = 0;
    for (int s = kPerThread; s < ns; s *= radix_after(kPerThread, s)) entries += (radix_after(kPerThread, s) - 1) * s;
    return entries;
  }
  static constexpr int kEntries = entries_before(kPoints);
  static constexpr int kFloats = 2 * kEntries;
  float2* table;
  __device__ static TabledTwiddles in(float* floats) { return {reinterpret_cast<float2*>(floats)}; }
  // Entry e of the table, computed by thread e % threads: which pass, which k and r it is.
  __device__ void fill(int thread, int threads) const {
    for (int e = thread; e < kEntries; e += threads) {
      int i = e, ns = kPerThread;
      while (i >= (radix_after(kPerThread, ns) - 1) * ns) {
        i -= (radix_after(kPerThread, ns) - 1) * ns;
        ns *= radix_after(kPerThread, ns);
      }
      table[e] = twiddle((i % ns) * (i / ns + 1), ns * radix_after(kPerThread, ns));
    }
  }
  template <int R, int Ns>
  __device__ float2 at(int k, int r) const {
    constexpr int kFirst = entries_before(Ns);
    return table[kFirst + (r - 1) * Ns + k];
  }
};

// ---------------------------------------------------------------------------------------------
// The passes


// One radix-R pass (Stockham): the thread's P / R butterflies, butterfly j = t + b * threads. Its
// R inputs (points j + r N/R) were combined into sub-transforms of length Ns, so input r is
// twiddled by W_{Ns R}^{(j mod Ns) r} before the R-point DFT.
template <int R, int kPerThread, int Ns, typename Twiddles>
__device__ __forceinline__ void radix_pass(float2 (&v)[kPerThread], const Twiddles& twiddles, int t) {
  constexpr int kThreads = kPoints / kPerThread;
#pragma unroll
  for (int b = 0; b < kPerThread / R; ++b) {
    float2* butterfly = v + b * R;
    if constexpr (Ns > 1) {
      const int k = (t + b * kThreads) % Ns;
#pragma unroll
      for (int r = 1; r < R; ++r) butterfly[r] = cmul(butterfly[r], twiddles.template at<R, Ns>(k, r));
    }
    dft_in_registers<R>(butterfly);
  }
}

// After a radix-R pass: butterfly j's outputs go to (j / Ns) Ns R + j mod Ns + r Ns, where the
// next pass reads them as its inputs j' + r' N / R'.
template <int R, int Rnext, int kPerThread, int Ns, typename Points>
__device__ __forceinline__ void exchange(float2 (&v)[kPerThread], const Points& points, int t) {
  constexpr int kThreads = kPoints / kPerThread;
#pragma unroll
  for (int b = 0; b < kPerThread / R; ++b) {
    const int j = t + b * kThreads;
    const int first = (j / Ns) * Ns * R + j % Ns;
#pragma unroll
    for (int r = 0; r < R; ++r) points.store(first + r * Ns, v[b * R + r]);
  }
  __syncthreads();
#pragma unroll
  for (int b = 0; b < kPerThread / Rnext; ++b) {
#pragma unroll
    for (int r = 0; r < Rnext; ++r) v[b * Rnext + r] = points.load(t + b * kThreads + r * (kPoints / Rnext));
  }
  __syncthreads();  // everyone has read before anyone writes the next exchange
}

// The passes from the one after Ns points are combined to the last, which writes the transform.
template <int kPerThread, int Ns, typename Points, typename Twiddles>
__device__ __forceinline__ void passes_from(float2 (&v)[kPerThread], const Points& points, const Twiddles& twiddles, int t,
                                            float2* y, bool active) {
  constexpr int R = radix_after(kPerThread, Ns);
  radix_pass<R, kPerThread, Ns>(v, twiddles, t);
  if constexpr (Ns * R == kPoints) {
    // The last pass's butterfly j writes j + r N/R: consecutive threads, consecutive points.
    constexpr int kThreads = kPoints / kPerThread;
    if (!active) return;
#pragma unroll
    for (int b = 0; b < kPerThread / R; ++b)
#pragma unroll
      for (int r = 0; r < R; ++r) y[t + b * kThreads + r * (kPoints / R)] = v[b * R + r];
  } else {
    exchange<R, radix_after(kPerThread, Ns * R), kPerThread, Ns>(v, points, t);
    passes_from<kPerThread, Ns * R>(v, points, twiddles, t, y, active);
  }
}

// ---------------------------------------------------------------------------------------------
// The kernel

// kTransforms transforms per block, kPerThread points per thread. Threads of a transform that is
// past the batch still reach every barrier; they only skip the loads and stores.
template <int kPerThread, int kTransforms, typename Points, typename Twiddles>
__global__ void __launch_bounds__(kTransforms * kPoints / kPerThread)
    fft_registers_kernel(const float2* __restrict__ in, float2* __restrict__ out, int batch) {
  constexpr int kThreads = kPoints / kPerThread;
  // Each transform's exchange buffer, then the twiddle table (none for ComputedTwiddles).
  __shared__ __align__(16) float shared_floats[kTransforms * Points::kFloats + Twiddles::kFloats];
  const int t = threadIdx.x % kThreads;
  const int local = threadIdx.x / kThreads;
  const long long transform = static_cast<long long>(blockIdx.x) * kTransforms + local;
  const bool active = transform < batch;
  const float2* x = in + transform * kPoints;
  float2* y = out + transform * kPoints;

  // The first pass (radix P) reads points t + r N/P: consecutive threads, consecutive points.
  float2 v[kPerThread];
#pragma unroll
  for (int r = 0; r < kPerThread; ++r) v[r] = active ? x[t + r * kThreads] : make_float2(0.0f, 0.0f);
  // The table is read from the second pass on, after the first exchange's barrier.
  const Twiddles twiddles = Twiddles::in(shared_floats + kTransforms * Points::kFloats);
  twiddles.fill(threadIdx.x, blockDim.x);
  passes_from<kPerThread, 1>(v, Points::in(shared_floats + local * Points::kFloats), twiddles, t, y, active);
}

template <int kPerThread, int kTransforms, typename Points, typename Twiddles = ComputedTwiddles>
void launch_fft(const FftProblem& p, cudaStream_t stream, const char* step) {
  validate(p, step);
  if (p.batch == 0) return;
  const unsigned blocks = static_cast<unsigned>((p.batch + kTransforms - 1) / kTransforms);
  workbook::launch(fft_registers_kernel<kPerThread, kTransforms, Points, Twiddles>, dim3(blocks),
                   dim3(kTransforms * kPoints / kPerThread), 0, stream, p.in, p.out, p.batch);
}

}  // namespace

void fft_2_outputs_per_thread(const FftProblem& p, cudaStream_t stream) {
  launch_fft<2, 1, InterleavedPoints>(p, stream, "fft_2_outputs_per_thread");
}

void fft_4_outputs_per_thread(const FftProblem& p, cudaStream_t stream) {
  launch_fft<4, 1, InterleavedPoints>(p, stream, "fft_4_outputs_per_thread");
}

void fft_8_outputs_per_thread(const FftProblem& p, cudaStream_t stream) {
  launch_fft<8, 1, InterleavedPoints>(p, stream, "fft_8_outputs_per_thread");
}

void fft_16_outputs_per_thread(const FftProblem& p, cudaStream_t stream) {
  launch_fft<16, 1, InterleavedPoints>(p, stream, "fft_16_outputs_per_thread");
}

void fft_at_cufft_speed(const FftProblem& p, cudaStream_t stream) {
  launch_fft<16, 4, PaddedPlanes, TabledTwiddles<16>>(p, stream, "fft_at_cufft_speed");
}

}  // namespace fft_lab
