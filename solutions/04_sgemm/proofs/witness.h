// The witnesses of lab 04_sgemm (grader/harness/ladder.h): each step's idea in its textbook form,
// as the handout describes it and no more, with the plainest guards the lab's shapes need. Each bar
// must admit its witness by 5% and reject the previous step's reference solution. The instructor's:
// a witness would pass its step, so it is never in a student's copy (./workbook handout). Only the
// solution's grader links them, by step id (grader/harness/witness_registry.h).
#pragma once

#include <cstddef>

#include "sgemm.h"

namespace sgemm_witness {

using sgemm_lab::GemmProblem;

void coalesced(const GemmProblem& problem, cudaStream_t stream);             // 04.1
void shared_tiles(const GemmProblem& problem, cudaStream_t stream);          // 04.2
void outputs_per_thread_2(const GemmProblem& problem, cudaStream_t stream);  // 04.3
void outputs_per_thread_4(const GemmProblem& problem, cudaStream_t stream);  // 04.4
void outputs_per_thread_8(const GemmProblem& problem, cudaStream_t stream);  // 04.5
void rank1_updates(const GemmProblem& problem, cudaStream_t stream);         // 04.6
void register_blocked(const GemmProblem& problem, cudaStream_t stream);      // 04.7
void double_buffered(const GemmProblem& problem, cudaStream_t stream);       // 04.8
void split_k(const GemmProblem& problem, cudaStream_t stream);               // 04.9
void packed_pipeline(const GemmProblem& problem, cudaStream_t stream);       // 04.10
// The workspaces of 04.9 and 04.10 (the partial products; packed A and B and the partial products).
std::size_t split_k_workspace_bytes(const GemmProblem& shape);
std::size_t packed_pipeline_workspace_bytes(const GemmProblem& shape);

}  // namespace sgemm_witness
