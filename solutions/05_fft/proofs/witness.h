// The witnesses of lab 05_fft (grader/harness/ladder.h): each step's idea in its textbook form, as
// the handout describes it and no more. Each bar must admit its witness by 5% and reject the
// previous step's reference solution. The instructor's: a witness would pass its step, so it is
// never in a student's copy (./workbook handout). Only the solution's grader links them, by step id
// (grader/harness/witness_registry.h).
#pragma once

#include "fft.h"

namespace fft_witness {

using fft_lab::FftProblem;

void outputs_per_thread_2(const FftProblem& problem, cudaStream_t stream);   // 05.1
void outputs_per_thread_4(const FftProblem& problem, cudaStream_t stream);   // 05.2
void outputs_per_thread_8(const FftProblem& problem, cudaStream_t stream);   // 05.3
void outputs_per_thread_16(const FftProblem& problem, cudaStream_t stream);  // 05.4

}  // namespace fft_witness
