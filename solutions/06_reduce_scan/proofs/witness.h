// The witnesses of lab 06_reduce_scan (grader/harness/ladder.h): each step's idea in its textbook
// form, as the handout describes it and no more. Each bar must admit its witness by 5% and reject
// the previous step's reference solution. The instructor's: a witness would pass its step, so it is
// never in a student's copy (./workbook handout). Only the solution's grader links them, by step id
// (grader/harness/witness_registry.h).
#pragma once

#include <cstddef>

#include "reduce_scan.h"

namespace reduce_scan_witness {

using reduce_scan_lab::SumProblem;

void interleaved(const SumProblem& problem, cudaStream_t stream);           // 06.1
void sequential(const SumProblem& problem, cudaStream_t stream);            // 06.2
void first_add_during_load(const SumProblem& problem, cudaStream_t stream);  // 06.3
void last_warp_shuffled(const SumProblem& problem, cudaStream_t stream);    // 06.4
void unrolled(const SumProblem& problem, cudaStream_t stream);              // 06.5
// The workspace of the reductions above: the partial sums of two passes.
std::size_t reduce_workspace_bytes(const SumProblem& shape);

void blelloch(const SumProblem& problem, cudaStream_t stream);          // 06.7
void hillis_steele(const SumProblem& problem, cudaStream_t stream);     // 06.8
void register_blocked(const SumProblem& problem, cudaStream_t stream);  // 06.9
// The workspace of the scans above: the block totals of every level (and 06.9's tile totals).
std::size_t scan_workspace_bytes(const SumProblem& shape);

}  // namespace reduce_scan_witness
