// The witnesses of lab 05_fft: see witness.h. One Stockham kernel, written from the handout's "one
// pass" section, with the points per thread P its parameter: one block of 1024 / P threads per
// transform, passes of radix P while P more points fit and then what is left (1024 = 2^10 = 4^5 =
// 8^3 2 = 16^2 4), the points exchanged through a plain float2[1024] between passes, and every
// twiddle computed where it is used by given.cuh's twiddle(). No padding, no twiddle table, one
// transform per block: what 05.5 adds is not asked of 05.1 to 05.4.
#include "witness.h"
#include "harness/witness_registry.h"

#include "given.cuh"  // validate(), cadd, csub, cmul, times_minus_i, twiddle
#include "workbook/launch.cuh"

namespace fft_witness {

namespace {

using fft_lab::cadd;
using fft_lab::cmul;
using fft_lab::csub;
using fft_lab::kPoints;
using fft_lab::times_minus_i;

// cos(2 pi m / 16): every twiddle inside a DFT of up to 16 points is one of W_16^m = (cos(2 pi m / 16),
// -sin(2 pi m / 16)). Called with constants once the loops are unrolled: the values become immediates.
__host__ __device__ constexpr float cos_sixteenth(int m) {
  constexpr float kQuarter[5] = {1.0f, 0.923879533f, 0.707106781f, 0.382683432f, 0.0f};  // m = 0 .. 4
  m &= 15;
  if (m <= 4) return kQuarter[m];
  if (m <= 8) return -kQuarter[8 - m];
  if (m <= 12) return -kQuarter[m - 8];
  return kQuarter[16 - m];
}

// a W_16^m. The quarter turns need no multiplication: W_16^4 = -i (times_minus_i), W_16^8 = -1.
__device__ __forceinline__ float2 rotate(float2 a, int m) {
  if (m == 0) return a;
  if (m == 4) return times_minus_i(a);
  if (m == 8) return make_float2(-a.x, -a.y);
  if (m == 12) return make_float2(-a.y, a.x);
  return cmul(a, make_float2(cos_sixteenth(m), -cos_sixteenth(m - 4)));  // sin x = cos(x - pi/2)
}

// The low `bits` bits of value, bits <= 4, in reverse order. No loop: written as a loop, it was left
// rolled inside the unrolled loops that call it (ptxas -v: a 192-byte stack frame at 8 points per
// thread), its result was no constant, and the points it indexed went to local memory.
__host__ __device__ constexpr int reverse_bits(int value, int bits) {
  const int reversed4 = ((value & 1) << 3) | ((value & 2) << 1) | ((value & 4) >> 1) | ((value & 8) >> 3);
  return reversed4 >> (4 - bits);
}

__host__ __device__ constexpr int log2_of(int n) { return n == 1 ? 0 : 1 + log2_of(n / 2); }

// One level of radix-2 butterflies, Span apart, with twiddles W_{2 Span}^j, then the next level.
// The levels are unrolled by construction (a template per level), not by a #pragma on a loop
// whose trip count depends on an outer loop's variable, which the compiler may decline (the
// handout's warning). Every index into y is then a constant, and y stays in registers.
template <int R, int Span>
__device__ __forceinline__ void butterfly_levels(float2 (&y)[R]) {
#pragma unroll
  for (int i = 0; i < R / 2; ++i) {
    const int j = i % Span, top = (i / Span) * 2 * Span + j;
    const float2 a = y[top], b = rotate(y[top + Span], j * (8 / Span));  // W_{2 Span}^j = W_16^{8 j / Span}
    y[top] = cadd(a, b);
    y[top + Span] = csub(a, b);
  }
  if constexpr (2 * Span < R) butterfly_levels<R, 2 * Span>(y);
}

// The R-point DFT of x, in place, in registers: the inputs put in bit-reversed order (with constant
// indices, a renaming of registers), then log2 R levels of butterflies (decimation in time).
template <int R>
__device__ __forceinline__ void dft(float2 (&x)[R]) {
  float2 y[R];
#pragma unroll
  for (int i = 0; i < R; ++i) y[i] = x[reverse_bits(i, log2_of(R))];
  butterfly_levels<R, 1>(y);
#pragma unroll
  for (int i = 0; i < R; ++i) x[i] = y[i];
}

// The passes from the one that starts with sub-transforms of length Ns: its radix R is P while P
// more points fit, else what is left; each thread does P / R of its butterflies, j = t, t + T, ...
// (T = 1024 / P threads), butterfly j's input r being point j + r 1024 / R: the thread's register
// b + r P / R, since the thread holds points t + q T in register q. The last pass writes `out`, the
// others the exchange, which the next pass reads back.
template <int P, int Ns>
__device__ __forceinline__ void passes_from(float2 (&x)[P], float2* exchange, float2* out, int t) {
  constexpr int R = kPoints / Ns < P ? kPoints / Ns : P;
  constexpr int kThreads = kPoints / P, kButterflies = P / R;
  constexpr bool kLast = Ns * R == kPoints;
#pragma unroll
  for (int b = 0; b < kButterflies; ++b) {
    const int j = t + b * kThreads;
    float2 y[R];
#pragma unroll
    for (int r = 0; r < R; ++r) y[r] = x[b + r * kButterflies];
    if (Ns > 1) {
#pragma unroll
      for (int r = 1; r < R; ++r) y[r] = cmul(y[r], fft_lab::twiddle((j % Ns) * r, Ns * R));
    }
    dft<R>(y);
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int point = (j / Ns) * Ns * R + j % Ns + r * Ns;
      if (kLast) out[point] = y[r];
      else exchange[point] = y[r];
    }
  }
  if constexpr (!kLast) {
    __syncthreads();  // every output of this pass is in the exchange
#pragma unroll
    for (int q = 0; q < P; ++q) x[q] = exchange[t + q * kThreads];
    __syncthreads();  // everyone has read before anyone writes the next pass's outputs
    passes_from<P, Ns * R>(x, exchange, out, t);
  }
}

// One block per transform, 1024 / P threads; thread t reads points t + q 1024 / P (coalesced).
template <int P>
__global__ void __launch_bounds__(kPoints / P) fft_kernel(const float2* in, float2* out) {
  __shared__ float2 exchange[kPoints];
  constexpr int kThreads = kPoints / P;
  const int t = threadIdx.x;
  const float2* const transform_in = in + std::size_t(blockIdx.x) * kPoints;
  float2 x[P];
#pragma unroll
  for (int q = 0; q < P; ++q) x[q] = transform_in[t + q * kThreads];
  passes_from<P, 1>(x, exchange, out + std::size_t(blockIdx.x) * kPoints, t);
}

template <int P>
void launch(const FftProblem& p, const char* name, cudaStream_t stream) {
  fft_lab::validate(p, name);
  if (p.batch == 0) return;
  workbook::launch(fft_kernel<P>, dim3(p.batch), dim3(kPoints / P), 0, stream, p.in, p.out);
}

}  // namespace

void outputs_per_thread_2(const FftProblem& p, cudaStream_t stream) { launch<2>(p, "witness of 05.1", stream); }
void outputs_per_thread_4(const FftProblem& p, cudaStream_t stream) { launch<4>(p, "witness of 05.2", stream); }
void outputs_per_thread_8(const FftProblem& p, cudaStream_t stream) { launch<8>(p, "witness of 05.3", stream); }
void outputs_per_thread_16(const FftProblem& p, cudaStream_t stream) { launch<16>(p, "witness of 05.4", stream); }

}  // namespace fft_witness

// Linking this file registers each witness under its step's id (grader/harness/witness_registry.h): only
// the solution's grader links it.
namespace {
const bool registered = workbook::register_witnesses<fft_lab::FftProblem>({
    {"05.1", {fft_witness::outputs_per_thread_2}},
    {"05.2", {fft_witness::outputs_per_thread_4}},
    {"05.3", {fft_witness::outputs_per_thread_8}},
    {"05.4", {fft_witness::outputs_per_thread_16}}});
}  // namespace
