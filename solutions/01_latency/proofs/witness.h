// The witness of lab 01_latency's one rung, 01.4 (grader/harness/ladder.h): its idea in its
// textbook form, as the handout describes it and no more. Its bar must admit it by 5%. The
// instructor's: a witness would pass its step, so it is never in a student's copy (./workbook
// handout). Only the solution's grader links it, by step id (grader/harness/witness_registry.h).
#pragma once

#include "latency.h"

namespace latency_witness {

// 01.4 with as many chains per thread as Little's law asks at one warp per scheduler: the FMA's
// latency (4 cycles) times one FMA issued per cycle.
void fma_with_ilp(const latency_lab::LatencyProblem& problem, cudaStream_t stream);

}  // namespace latency_witness
