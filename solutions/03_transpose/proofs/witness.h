// The witnesses of lab 03_transpose (grader/harness/ladder.h): each step's idea in its textbook
// form, as the handout describes it and no more. Each bar must admit its witness by 5% and reject
// the previous step's reference solution. The instructor's: a witness would pass its step, so it is
// never in a student's copy (./workbook handout). Only the solution's grader links them, by step id
// (grader/harness/witness_registry.h).
#pragma once

#include "transpose.h"

namespace transpose_witness {

using transpose_lab::TransposeProblem;

void tiled(const TransposeProblem& problem, cudaStream_t stream);     // 03.1
void padded(const TransposeProblem& problem, cudaStream_t stream);    // 03.2
void diagonal(const TransposeProblem& problem, cudaStream_t stream);  // 03.3

}  // namespace transpose_witness
