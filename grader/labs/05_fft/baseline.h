// Lab 05_fft's baseline, the naive FFT every step is measured against: the textbook radix-2
// Cooley-Tukey, one kernel launch per stage through device memory. Fixed: part of the grader.
#pragma once

#include <cuda_runtime_api.h>

#include "fft.h"

namespace fft_baseline {

// A bit-reversing copy from in to out, then ten in-place stages of radix-2 butterflies on out, one
// thread per butterfly: 11 launches, each of which reads and writes all of out.
void fft_radix2_per_stage(const fft_lab::FftProblem& problem, cudaStream_t stream);

}  // namespace fft_baseline
