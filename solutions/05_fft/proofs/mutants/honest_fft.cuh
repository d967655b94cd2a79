// The mutants' FFT: 16 points per thread, 64 threads per transform, radix 16, 16 and 4 with two
// exchanges through shared memory (the reference's 05.4, written again so that no mutant depends
// on the solution), with one optional defect. Defect::kNone is correct: the defence mutants cheat
// around it instead.
#pragma once

#include <cuda_fp16.h>

#include "given.cuh"
#include "workbook/launch.cuh"

namespace fft_mutant {

enum class Defect {
  kNone,
  kHalfPrecision,       // the points held in FP16 (__half2) between passes
  kMissingTwiddle,      // the last pass forgets its twiddles
  kTwiddleSign,         // exp(+2 pi i ...) between passes: the conjugate twiddles
  kBitReversedOrder,    // output k written at the bit reversal of k
};

namespace honest {

using fft_lab::cadd;
using fft_lab::cmul;
using fft_lab::csub;
using fft_lab::kPoints;
constexpr int kPerThread = 16, kThreads = kPoints / kPerThread;

// The R-point DFT of v[0..R) by its definition (the mutants need no speed beyond a few steps' bars).
template <int R>
__device__ void dft(float2* v) {
  float2 result[R];
#pragma unroll
  for (int k = 0; k < R; ++k) {
    float2 sum = make_float2(0.0f, 0.0f);
#pragma unroll
    for (int n = 0; n < R; ++n) sum = cadd(sum, cmul(v[n], fft_lab::twiddle((n * k) % R, R)));
    result[k] = sum;
  }
#pragma unroll
  for (int k = 0; k < R; ++k) v[k] = result[k];
}

template <Defect kDefect>
__device__ float2 held(float2 v) {
  if constexpr (kDefect == Defect::kHalfPrecision) return __half22float2(__float22half2_rn(v));
  return v;
}

template <int R, int Ns, Defect kDefect>
__device__ void pass(float2 (&v)[kPerThread], int t, bool last) {
#pragma unroll
  for (int b = 0; b < kPerThread / R; ++b) {
    const int k = (t + b * kThreads) % Ns;
    const bool twiddled = Ns > 1 && !(kDefect == Defect::kMissingTwiddle && last);
#pragma unroll
    for (int r = 1; r < R; ++r) {
      if (!twiddled) continue;
      float2 w = fft_lab::twiddle(k * r, Ns * R);
      if (kDefect == Defect::kTwiddleSign) w.y = -w.y;
      v[b * R + r] = cmul(v[b * R + r], w);
    }
    dft<R>(v + b * R);
#pragma unroll
    for (int r = 0; r < R; ++r) v[b * R + r] = held<kDefect>(v[b * R + r]);
  }
}

template <int R, int Rnext, int Ns>
__device__ void exchange(float2 (&v)[kPerThread], float2* points, int t) {
#pragma unroll
  for (int b = 0; b < kPerThread / R; ++b) {
    const int j = t + b * kThreads;
#pragma unroll
    for (int r = 0; r < R; ++r) points[(j / Ns) * Ns * R + j % Ns + r * Ns] = v[b * R + r];
  }
  __syncthreads();
#pragma unroll
  for (int b = 0; b < kPerThread / Rnext; ++b)
#pragma unroll
    for (int r = 0; r < Rnext; ++r) v[b * Rnext + r] = points[t + b * kThreads + r * (kPoints / Rnext)];
  __syncthreads();
}

template <Defect kDefect>
__global__ void __launch_bounds__(kThreads) fft_kernel(const float2* in, float2* out) {
  __shared__ float2 points[kPoints];
  const int t = threadIdx.x;
  const float2* x = in + static_cast<long long>(blockIdx.x) * kPoints;
  float2* y = out + static_cast<long long>(blockIdx.x) * kPoints;
  float2 v[kPerThread];
#pragma unroll
  for (int r = 0; r < kPerThread; ++r) v[r] = held<kDefect>(x[t + r * kThreads]);
  pass<16, 1, kDefect>(v, t, false);
  exchange<16, 16, 1>(v, points, t);
  pass<16, 16, kDefect>(v, t, false);
  exchange<16, 4, 16>(v, points, t);
  pass<4, 256, kDefect>(v, t, true);
#pragma unroll
  for (int b = 0; b < 4; ++b)
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int k = t + b * kThreads + r * (kPoints / 4);
      y[kDefect == Defect::kBitReversedOrder ? (__brev(k) >> 22) : k] = v[b * 4 + r];
    }
}

}  // namespace honest

template <Defect kDefect>
void honest_fft(const fft_lab::FftProblem& p, cudaStream_t stream, const char* name) {
  fft_lab::validate(p, name);
  if (p.batch == 0) return;
  workbook::launch(honest::fft_kernel<kDefect>, dim3(static_cast<unsigned>(p.batch)), dim3(honest::kThreads), 0, stream, p.in,
                   p.out);
}

}  // namespace fft_mutant
