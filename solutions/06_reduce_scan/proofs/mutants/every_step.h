// A mutant of lab 06_reduce_scan is one wrong sum and one wrong scan, used for every step of each
// ladder, so the grader must reject every step (a defence mutant's sum and scan cheat instead, and
// are graded on the steps add_lab() names for it). Each mutant's .cu defines both and includes this
// header once: it provides the lab's launchers and workspace sizes on top of them. A mutant whose
// defect is in one ladder makes the other throw not_this_mutant() (a clean failure).
#pragma once

#include <cstddef>
#include <string>

#include "reduce_scan.h"
#include "workbook/cuda.h"

namespace reduce_scan_mutant {
void wrong_sum(const reduce_scan_lab::SumProblem& problem, cudaStream_t stream);
void wrong_scan(const reduce_scan_lab::SumProblem& problem, cudaStream_t stream);
std::size_t sum_workspace_bytes(const reduce_scan_lab::SumProblem& shape);
std::size_t scan_workspace_bytes(const reduce_scan_lab::SumProblem& shape);

[[noreturn]] inline void not_this_mutant(const char* ladder) {
  throw workbook::NotImplemented(std::string("this mutant's defect is not in the ") + ladder);
}
}  // namespace reduce_scan_mutant

namespace reduce_scan_lab {
using reduce_scan_mutant::wrong_scan;
using reduce_scan_mutant::wrong_sum;
void reduce_interleaved(const SumProblem& p, cudaStream_t s) { wrong_sum(p, s); }
void reduce_sequential(const SumProblem& p, cudaStream_t s) { wrong_sum(p, s); }
void reduce_first_add_during_load(const SumProblem& p, cudaStream_t s) { wrong_sum(p, s); }
void reduce_last_warp_shuffled(const SumProblem& p, cudaStream_t s) { wrong_sum(p, s); }
void reduce_unrolled(const SumProblem& p, cudaStream_t s) { wrong_sum(p, s); }
void reduce_at_cub_speed(const SumProblem& p, cudaStream_t s) { wrong_sum(p, s); }
void scan_hillis_steele(const SumProblem& p, cudaStream_t s) { wrong_scan(p, s); }
void scan_blelloch(const SumProblem& p, cudaStream_t s) { wrong_scan(p, s); }
void scan_register_blocked(const SumProblem& p, cudaStream_t s) { wrong_scan(p, s); }
void scan_decoupled_look_back(const SumProblem& p, cudaStream_t s) { wrong_scan(p, s); }
std::size_t reduce_workspace_bytes(const SumProblem& shape) { return reduce_scan_mutant::sum_workspace_bytes(shape); }
std::size_t scan_workspace_bytes(const SumProblem& shape) { return reduce_scan_mutant::scan_workspace_bytes(shape); }
}  // namespace reduce_scan_lab
