// Lab 05's device-side work of the grader: cuFFT (the line to beat; linked into the grader only,
// never the student's code), and the check of every timed call's output against a double-precision
// FFT of the input computed on the GPU from the input's seed (never from the input buffer the
// kernel could have changed).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "harness/buffers.h"
#include "oracle.h"

namespace fft_check {

// out = the forward FFT of in, by cufftExecC2C with a plan for `batch` 1024-point transforms,
// made on the first call for that batch (call it once outside any timing).
void cufft_forward(const float2* in, float2* out, int batch, cudaStream_t stream);

// Adds to *result every output point of `out` (batch transforms of 1024) farther from the exact
// transform X of the input x drawn from `seed` than tolerance.allowed(||x||_2, |X[k]|), NaN
// included; `first` is the point's index (transform * 1024 + k).
void count_outside_tolerance(std::uint64_t seed, const float2* out, int batch, const fft_oracle::Tolerance& tolerance,
                             workbook::DeviceMismatches* result, cudaStream_t stream);

}  // namespace fft_check
