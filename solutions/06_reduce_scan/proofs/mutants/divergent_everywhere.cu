// Mutant: the baselines renamed as every step (Harris's kernel 1 for each sum, the naive
// Hillis-Steele scan for each scan). Correct, and no faster than the baseline: every bar asks for a
// speedup, so every step must fail on speed, not on correctness.
#include "../../../../grader/labs/06_reduce_scan/baseline.h"  // the grader's baselines, linked into every grader binary
#include "every_step.h"

namespace reduce_scan_mutant {
void wrong_sum(const reduce_scan_lab::SumProblem& p, cudaStream_t s) { reduce_scan_baseline::reduce_divergent(p, s); }
void wrong_scan(const reduce_scan_lab::SumProblem& p, cudaStream_t s) { reduce_scan_baseline::scan_naive(p, s); }
std::size_t sum_workspace_bytes(const reduce_scan_lab::SumProblem& shape) {
  return reduce_scan_baseline::reduce_divergent_workspace_bytes(shape);
}
std::size_t scan_workspace_bytes(const reduce_scan_lab::SumProblem& shape) {
  return reduce_scan_baseline::scan_naive_workspace_bytes(shape);
}
}  // namespace reduce_scan_mutant
