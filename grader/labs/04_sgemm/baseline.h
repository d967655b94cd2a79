// The baseline that lab 04_sgemm's speedups are measured against. It lives in grader/, out of the
// student's reach, so that nobody can make their speedup look better by slowing it down.
#pragma once

#include "sgemm.h"

namespace sgemm_baseline {

// The naive kernel, one output per thread, with threadIdx.x running down a column of C: a warp
// loads 32 floats of A from 32 different rows (32 lines for 128 useful bytes) and one float of B.
void sgemm_naive(const sgemm_lab::GemmProblem& problem, cudaStream_t stream);

}  // namespace sgemm_baseline
