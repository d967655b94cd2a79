// The functions of lab 01_latency's interface (latency.h) as its judge (judge_01_latency) has them: each
// call goes to the student's planner, whose plan the judge checks and replays (grader/judge/
// judge.h). Linked only into the judge, in place of the student's file: the student's host code
// never runs in the process that grades it. The same functions as the lab's planner.cpp serves;
// each asks for itself by its own name (__func__), so it can ask for no other.
#include "judge.h"
#include "latency.h"

void latency_lab::measure_fma_latency(const LatencyProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void latency_lab::measure_load_latency(const LatencyProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

latency_lab::Occupancy latency_lab::occupancy_of(const BlockShape& block, const SmLimits& sm) {
  return workbook::judged_answer<latency_lab::Occupancy>(__func__, block, sm);
}

void latency_lab::fma_with_ilp(const LatencyProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}
