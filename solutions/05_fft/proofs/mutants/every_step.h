// A mutant of lab 05_fft is one wrong FFT used for every step, so the grader must reject every
// step (a defence mutant's FFT cheats instead, and is graded on the steps add_lab() names for it).
// Each mutant's .cu defines wrong_fft() and includes this header once: it provides the lab's
// launchers on top of it.
#pragma once

#include "fft.h"

namespace fft_mutant {
void wrong_fft(const fft_lab::FftProblem& problem, cudaStream_t stream);
}  // namespace fft_mutant

namespace fft_lab {
void fft_2_outputs_per_thread(const FftProblem& p, cudaStream_t s) { fft_mutant::wrong_fft(p, s); }
void fft_4_outputs_per_thread(const FftProblem& p, cudaStream_t s) { fft_mutant::wrong_fft(p, s); }
void fft_8_outputs_per_thread(const FftProblem& p, cudaStream_t s) { fft_mutant::wrong_fft(p, s); }
void fft_16_outputs_per_thread(const FftProblem& p, cudaStream_t s) { fft_mutant::wrong_fft(p, s); }
void fft_at_cufft_speed(const FftProblem& p, cudaStream_t s) { fft_mutant::wrong_fft(p, s); }
}  // namespace fft_lab
