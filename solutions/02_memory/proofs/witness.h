// The witnesses of lab 02_memory (grader/harness/ladder.h): each step's idea in its textbook form,
// as the handout describes it and no more. Each bar must admit its witness by 5% and reject the
// previous step's reference solution. The instructor's: a witness would pass its step, so it is
// never in a student's copy (./workbook handout). Only the solution's grader links them, by step id
// (grader/harness/witness_registry.h).
#pragma once

#include "memory.h"

namespace memory_witness {

using memory_lab::CopyProblem;

void several_floats(const CopyProblem& problem, cudaStream_t stream);  // 02.1
void float2_loads(const CopyProblem& problem, cudaStream_t stream);    // 02.2
void float4_loads(const CopyProblem& problem, cudaStream_t stream);    // 02.3
void many_float4(const CopyProblem& problem, cudaStream_t stream);     // 02.4

}  // namespace memory_witness
