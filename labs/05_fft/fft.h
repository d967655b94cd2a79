// Lab 05_fft: a batched 1024-point FFT, more outputs per thread, to cuFFT speed.
//
// The interface every implementation of the lab provides (the starter you edit, the reference
// solution, the grader's baseline and its mutants), so that one grader links against any of them.
// Plain C++: it compiles with the host compiler.
#pragma once

#include <cuda_runtime_api.h>  // float2

namespace fft_lab {

// Every transform in this lab has 1024 points: it fits in one thread block, which is the lab's point.
inline constexpr int kPoints = 1024;

// `batch` forward transforms, single precision, complex to complex, out of place, unscaled (as
// cufftExecC2C with CUFFT_FORWARD): for each transform b and each k in [0, 1024),
//   out[b * 1024 + k] = sum over n of in[b * 1024 + n] * exp(-2 pi i n k / 1024).
// A float2 is one complex value: x the real part, y the imaginary part.
struct FftProblem {
  const float2* in = nullptr;  // batch * 1024 values, 16-byte aligned (cudaMalloc gives 256)
  float2* out = nullptr;       // batch * 1024 values, 16-byte aligned, not overlapping `in`
  int batch = 0;               // any count from 0
};

// One launcher per step of the handout. Each validates the problem, sizes the grid and launches
// through workbook::launch() (which the grader reads to report registers and occupancy).
void fft_2_outputs_per_thread(const FftProblem& problem, cudaStream_t stream);   // TODO(05.1)
void fft_4_outputs_per_thread(const FftProblem& problem, cudaStream_t stream);   // TODO(05.2)
void fft_8_outputs_per_thread(const FftProblem& problem, cudaStream_t stream);   // TODO(05.3)
void fft_16_outputs_per_thread(const FftProblem& problem, cudaStream_t stream);  // TODO(05.4)
void fft_at_cufft_speed(const FftProblem& problem, cudaStream_t stream);         // TODO(05.5)

}  // namespace fft_lab
