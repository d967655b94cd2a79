// The grader's own FMA kernels for lab 01_latency. They live in grader/, out of the student's reach,
// so that nobody can make their speedup look better by slowing the baseline down.
#pragma once

#include "latency.h"

namespace latency_baseline {

// kIlp independent chains per thread (thread t of T takes chains t, t + T, ...), each stepped once
// per loop iteration. ILP 1, one chain per thread, is the baseline of 01.4: occupancy is its only
// way to hide the FMA's latency. ILP 8 at full occupancy is the FMA peak that 01.4 is a fraction
// of; ILP 1, 2, 3, 4 and 8 are the bench's curves (Volkov's slides 16-22). Defined for those, in
// blocks of 128 threads.
template <int kIlp>
void fma_chains(const latency_lab::LatencyProblem& problem, cudaStream_t stream);

}  // namespace latency_baseline
