// The functions of lab 04_sgemm's interface (sgemm.h) as its judge (judge_04_sgemm) has them: each
// call goes to the student's planner, whose plan the judge checks and replays (grader/judge/
// judge.h). Linked only into the judge, in place of the student's file: the student's host code
// never runs in the process that grades it. The same functions as the lab's planner.cpp serves;
// each asks for itself by its own name (__func__), so it can ask for no other.
#include "judge.h"
#include "sgemm.h"

void sgemm_lab::sgemm_coalesced(const GemmProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void sgemm_lab::sgemm_shared_tiles(const GemmProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void sgemm_lab::sgemm_2_outputs_per_thread(const GemmProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void sgemm_lab::sgemm_4_outputs_per_thread(const GemmProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void sgemm_lab::sgemm_8_outputs_per_thread(const GemmProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void sgemm_lab::sgemm_rank1_updates(const GemmProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void sgemm_lab::sgemm_register_blocked(const GemmProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void sgemm_lab::sgemm_double_buffered(const GemmProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void sgemm_lab::sgemm_split_k(const GemmProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void sgemm_lab::sgemm_packed_pipeline(const GemmProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void sgemm_lab::sgemm_warp_specialized(const GemmProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

std::size_t sgemm_lab::sgemm_split_k_workspace_bytes(const GemmProblem& shape) {
  return workbook::judged_answer<std::size_t>(__func__, shape);
}

std::size_t sgemm_lab::sgemm_packed_pipeline_workspace_bytes(const GemmProblem& shape) {
  return workbook::judged_answer<std::size_t>(__func__, shape);
}

std::size_t sgemm_lab::sgemm_warp_specialized_workspace_bytes(const GemmProblem& shape) {
  return workbook::judged_answer<std::size_t>(__func__, shape);
}
