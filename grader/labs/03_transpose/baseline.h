// The baseline that lab 03_transpose's speedups are measured against. It lives in grader/, out of
// the student's reach, so that nobody can make their speedup look better by slowing it down.
#pragma once

#include "transpose.h"

namespace transpose_baseline {

// The naive transpose: one float per thread, read along a row (coalesced), written down a column
// (each warp's store touches 32 output rows, 4 bytes in each).
void transpose_naive(const transpose_lab::TransposeProblem& problem, cudaStream_t stream);

}  // namespace transpose_baseline
