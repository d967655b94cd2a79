// The functions of lab 05_fft's interface (fft.h) as its judge (judge_05_fft) has them: each
// call goes to the student's planner, whose plan the judge checks and replays (grader/judge/
// judge.h). Linked only into the judge, in place of the student's file: the student's host code
// never runs in the process that grades it. The same functions as the lab's planner.cpp serves;
// each asks for itself by its own name (__func__), so it can ask for no other.
#include "judge.h"
#include "fft.h"

void fft_lab::fft_2_outputs_per_thread(const FftProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void fft_lab::fft_4_outputs_per_thread(const FftProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void fft_lab::fft_8_outputs_per_thread(const FftProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void fft_lab::fft_16_outputs_per_thread(const FftProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void fft_lab::fft_at_cufft_speed(const FftProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}
