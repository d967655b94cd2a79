// The baseline that lab 02_memory's speedups are measured against. It lives in grader/, out of
// the student's reach, so that nobody can make their speedup look better by slowing it down.
#pragma once

#include "memory.h"

namespace memory_baseline {

// One float per thread: each thread has 4 bytes in flight, the least a thread can have.
void copy_one_float_per_thread(const memory_lab::CopyProblem& problem, cudaStream_t stream);

}  // namespace memory_baseline
