// The witnesses of lab 02_memory (grader/harness/ladder.h): each step's idea in its textbook form,
// as the handout describes it and no more. Each bar must admit its witness by 5% and reject the
// previous step's reference solution. The grader's own code, out of the student's reach like the
// baseline; only the solution's grader runs them.
#pragma once

#include "memory.h"

namespace memory_witness {

using memory_lab::CopyProblem;

void several_floats(const CopyProblem& problem, cudaStream_t stream);  // 02.1
void float2_loads(const CopyProblem& problem, cudaStream_t stream);    // 02.2
void float4_loads(const CopyProblem& problem, cudaStream_t stream);    // 02.3
void many_float4(const CopyProblem& problem, cudaStream_t stream);     // 02.4

}  // namespace memory_witness
