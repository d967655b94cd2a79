#include "check.h"

#include <cufft.h>

#include <map>
#include <stdexcept>
#include <string>

#include "harness/device_check.cuh"

namespace fft_check {

namespace {

constexpr int kPoints = 1024;
constexpr int kThreads = kPoints / 2;  // one radix-2 butterfly per thread and pass

// One transform per block, in double precision: the input drawn again from its seed, its 2-norm,
// ten radix-2 Stockham passes in shared memory, then every output point compared with the truth.
__global__ void __launch_bounds__(kThreads)
    check_transform_kernel(std::uint64_t key, const float2* out, int batch, double per_norm, double per_output,
                           workbook::DeviceMismatches* result) {
  __shared__ double2 ping[kPoints], pong[kPoints];
  __shared__ double warp_squares[kThreads / 32];
  const int t = threadIdx.x;
  for (long long transform = blockIdx.x; transform < batch; transform += gridDim.x) {
    double squares = 0;
    for (int n = t; n < kPoints; n += kThreads) {
      const std::size_t point = std::size_t(transform) * kPoints + n;
      const double2 x{workbook::random_element(key, 2 * point), workbook::random_element(key, 2 * point + 1)};
      ping[n] = x;
      squares += x.x * x.x + x.y * x.y;
    }
    for (int offset = 16; offset > 0; offset /= 2) squares += __shfl_down_sync(0xffffffffu, squares, offset);
    if (t % 32 == 0) warp_squares[t / 32] = squares;
    __syncthreads();
    double2* a = ping;
    double2* b = pong;
    for (int ns = 1; ns < kPoints; ns *= 2) {
      const int k = t % ns;
      double s, c;
      sincospi(-double(k) / ns, &s, &c);  // W_{2 ns}^k
      const double2 x0 = a[t], x1 = a[t + kPoints / 2];
      const double2 y1{x1.x * c - x1.y * s, x1.x * s + x1.y * c};
      const int first = (t / ns) * 2 * ns + k;
      b[first] = double2{x0.x + y1.x, x0.y + y1.y};
      b[first + ns] = double2{x0.x - y1.x, x0.y - y1.y};
      __syncthreads();
      double2* swap = a;
      a = b;
      b = swap;
    }
    double norm_squared = 0;
    for (int w = 0; w < kThreads / 32; ++w) norm_squared += warp_squares[w];
    const double norm = sqrt(norm_squared);
    for (int n = t; n < kPoints; n += kThreads) {
      const std::size_t point = std::size_t(transform) * kPoints + n;
      const double allowed = per_norm * norm + per_output * hypot(a[n].x, a[n].y);
      const float2 got = out[point];
      const double error = hypot(double(got.x) - a[n].x, double(got.y) - a[n].y);
      if (!(error <= allowed)) workbook::note_mismatch(result, point);  // NaN fails too
    }
    __syncthreads();  // before the next transform overwrites ping, pong and the squares
  }
}

}  // namespace

void cufft_forward(const float2* in, float2* out, int batch, cudaStream_t stream) {
  if (batch == 0) return;
  static std::map<int, cufftHandle> plans;
  auto found = plans.find(batch);
  if (found == plans.end()) {
    cufftHandle plan = 0;
    if (cufftPlan1d(&plan, kPoints, CUFFT_C2C, batch) != CUFFT_SUCCESS)
      throw std::runtime_error("cufftPlan1d failed for a batch of " + std::to_string(batch));
    found = plans.emplace(batch, plan).first;
  }
  if (cufftSetStream(found->second, stream) != CUFFT_SUCCESS) throw std::runtime_error("cufftSetStream failed");
  // Out of place, cuFFT leaves a C2C transform's input as it found it; its API is not const.
  if (cufftExecC2C(found->second, reinterpret_cast<cufftComplex*>(const_cast<float2*>(in)),
                   reinterpret_cast<cufftComplex*>(out), CUFFT_FORWARD) != CUFFT_SUCCESS)
    throw std::runtime_error("cufftExecC2C failed");
}

void count_outside_tolerance(std::uint64_t seed, const float2* out, int batch, const fft_oracle::Tolerance& tolerance,
                             workbook::DeviceMismatches* result, cudaStream_t stream) {
  if (batch == 0) return;
  constexpr int kMaxBlocks = 4096;
  const int blocks = batch < kMaxBlocks ? batch : kMaxBlocks;
  check_transform_kernel<<<blocks, kThreads, 0, stream>>>(workbook::random_key(seed), out, batch, tolerance.per_norm,
                                                          tolerance.per_output, result);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace fft_check
