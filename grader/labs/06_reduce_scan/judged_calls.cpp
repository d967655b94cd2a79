// The functions of lab 06_reduce_scan's interface (reduce_scan.h) as its judge (judge_06_reduce_scan) has them: each
// call goes to the student's planner, whose plan the judge checks and replays (grader/judge/
// judge.h). Linked only into the judge, in place of the student's file: the student's host code
// never runs in the process that grades it. The same functions as the lab's planner.cpp serves;
// each asks for itself by its own name (__func__), so it can ask for no other.
#include "judge.h"
#include "reduce_scan.h"

void reduce_scan_lab::reduce_interleaved(const SumProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void reduce_scan_lab::reduce_sequential(const SumProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void reduce_scan_lab::reduce_first_add_during_load(const SumProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void reduce_scan_lab::reduce_last_warp_shuffled(const SumProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void reduce_scan_lab::reduce_unrolled(const SumProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void reduce_scan_lab::reduce_at_cub_speed(const SumProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void reduce_scan_lab::scan_blelloch(const SumProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void reduce_scan_lab::scan_hillis_steele(const SumProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void reduce_scan_lab::scan_register_blocked(const SumProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void reduce_scan_lab::scan_decoupled_look_back(const SumProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

std::size_t reduce_scan_lab::reduce_workspace_bytes(const SumProblem& shape) {
  return workbook::judged_answer<std::size_t>(__func__, shape);
}

std::size_t reduce_scan_lab::scan_workspace_bytes(const SumProblem& shape) {
  return workbook::judged_answer<std::size_t>(__func__, shape);
}
