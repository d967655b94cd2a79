// The functions of lab 03_transpose's interface (transpose.h) as its judge (judge_03_transpose) has them: each
// call goes to the student's planner, whose plan the judge checks and replays (grader/judge/
// judge.h). Linked only into the judge, in place of the student's file: the student's host code
// never runs in the process that grades it. The same functions as the lab's planner.cpp serves;
// each asks for itself by its own name (__func__), so it can ask for no other.
#include "judge.h"
#include "transpose.h"

void transpose_lab::transpose_tiled(const TransposeProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void transpose_lab::transpose_padded(const TransposeProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void transpose_lab::transpose_diagonal(const TransposeProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

void transpose_lab::transpose_at_copy_speed(const TransposeProblem& problem, cudaStream_t stream) {
  workbook::judged_launch(__func__, stream, problem);
}

transpose_lab::Tile transpose_lab::diagonal_tile_on_host(unsigned block_x, unsigned block_y, unsigned grid_x, unsigned grid_y) {
  return workbook::judged_answer<transpose_lab::Tile>(__func__, block_x, block_y, grid_x, grid_y);
}
