// The functions of lab 02_memory's interface (memory.h) as its judge (judge_02_memory) has them: each
// call goes to the student's planner, whose plan the judge checks and replays (grader/judge/
// judge.h). Linked only into the judge, in place of the student's file: the student's host code
// never runs in the process that grades it. The same functions as the lab's planner.cpp serves;
// each asks for itself by its own name (__func__), so it can ask for no other.
#include "judge.h"
#include "memory.h"

void memory_lab::copy_several_floats(const CopyProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void memory_lab::copy_float2(const CopyProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void memory_lab::copy_float4(const CopyProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void memory_lab::copy_many_float4(const CopyProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void memory_lab::copy_at_memcpy_speed(const CopyProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void memory_lab::copy_with_copy_engine(const CopyProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}
