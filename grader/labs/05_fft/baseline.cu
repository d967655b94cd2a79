#include "baseline.h"

#include "given.cuh"
#include "workbook/launch.cuh"

namespace fft_baseline {

namespace {

using fft_lab::kPoints;
constexpr int kThreads = 256;
constexpr int kBits = 10;  // log2(kPoints)
static_assert(1 << kBits == kPoints);

__global__ void bit_reversed_copy_kernel(const float2* in, float2* out, long long points) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= points) return;
  const long long transform = i / kPoints;
  const unsigned n = static_cast<unsigned>(i % kPoints);
  out[transform * kPoints + (__brev(n) >> (32 - kBits))] = in[i];
}

// One stage of decimation in time: butterflies of span `half`, twiddles W_{2 half}^pos.
__global__ void butterfly_stage_kernel(float2* data, long long butterflies, int half) {
  const long long q = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (q >= butterflies) return;
  const long long transform = q / (kPoints / 2);
  const int i = static_cast<int>(q % (kPoints / 2));
  const int pos = i % half;
  float2* y = data + transform * kPoints + (i / half) * 2 * half + pos;
  const float2 a = y[0];
  const float2 c = fft_lab::cmul(y[half], fft_lab::twiddle(pos, 2 * half));
  y[0] = fft_lab::cadd(a, c);
  y[half] = fft_lab::csub(a, c);
}

}  // namespace

void fft_radix2_per_stage(const fft_lab::FftProblem& p, cudaStream_t stream) {
  fft_lab::validate(p, "fft_radix2_per_stage");
  if (p.batch == 0) return;
  const long long points = static_cast<long long>(p.batch) * kPoints;
  workbook::launch(bit_reversed_copy_kernel,
                   dim3(static_cast<unsigned>(workbook::ceil_div(points, static_cast<long long>(kThreads)))),
                   dim3(kThreads), 0, stream, p.in, p.out, points);
  const long long butterflies = points / 2;
  for (int half = 1; half < kPoints; half *= 2)
    workbook::launch(butterfly_stage_kernel,
                     dim3(static_cast<unsigned>(workbook::ceil_div(butterflies, static_cast<long long>(kThreads)))),
                     dim3(kThreads), 0, stream, p.out, butterflies, half);
}

}  // namespace fft_baseline
