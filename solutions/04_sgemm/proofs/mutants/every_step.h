// A mutant of lab 04_sgemm is one wrong product, wrong_gemm(), used for every step, so the grader
// must reject every step. Each mutant's .cu defines wrong_gemm() and includes this header once: it
// provides the lab's launchers on top of it.
#pragma once

#include "sgemm.h"

namespace sgemm_mutant {
void wrong_gemm(const sgemm_lab::GemmProblem& problem, cudaStream_t stream);
}

namespace sgemm_lab {
void sgemm_coalesced(const GemmProblem& p, cudaStream_t s) { sgemm_mutant::wrong_gemm(p, s); }
void sgemm_shared_tiles(const GemmProblem& p, cudaStream_t s) { sgemm_mutant::wrong_gemm(p, s); }
void sgemm_2_outputs_per_thread(const GemmProblem& p, cudaStream_t s) { sgemm_mutant::wrong_gemm(p, s); }
void sgemm_4_outputs_per_thread(const GemmProblem& p, cudaStream_t s) { sgemm_mutant::wrong_gemm(p, s); }
void sgemm_8_outputs_per_thread(const GemmProblem& p, cudaStream_t s) { sgemm_mutant::wrong_gemm(p, s); }
void sgemm_rank1_updates(const GemmProblem& p, cudaStream_t s) { sgemm_mutant::wrong_gemm(p, s); }
void sgemm_register_blocked(const GemmProblem& p, cudaStream_t s) { sgemm_mutant::wrong_gemm(p, s); }
void sgemm_double_buffered(const GemmProblem& p, cudaStream_t s) { sgemm_mutant::wrong_gemm(p, s); }
void sgemm_split_k(const GemmProblem& p, cudaStream_t s) { sgemm_mutant::wrong_gemm(p, s); }
void sgemm_packed_pipeline(const GemmProblem& p, cudaStream_t s) { sgemm_mutant::wrong_gemm(p, s); }
void sgemm_warp_specialized(const GemmProblem& p, cudaStream_t s) { sgemm_mutant::wrong_gemm(p, s); }
std::size_t sgemm_split_k_workspace_bytes(const GemmProblem&) { return 0; }
std::size_t sgemm_packed_pipeline_workspace_bytes(const GemmProblem&) { return 0; }
std::size_t sgemm_warp_specialized_workspace_bytes(const GemmProblem&) { return 0; }
}  // namespace sgemm_lab
