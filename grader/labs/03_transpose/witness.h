// The witnesses of lab 03_transpose (grader/harness/ladder.h): each step's idea in its textbook
// form, as the handout describes it and no more. Each bar must admit its witness by 5% and reject
// the previous step's reference solution. The grader's own code, out of the student's reach like
// the baseline; only the solution's grader runs them.
#pragma once

#include "transpose.h"

namespace transpose_witness {

using transpose_lab::TransposeProblem;

void tiled(const TransposeProblem& problem, cudaStream_t stream);     // 03.1
void padded(const TransposeProblem& problem, cudaStream_t stream);    // 03.2
void diagonal(const TransposeProblem& problem, cudaStream_t stream);  // 03.3

}  // namespace transpose_witness
