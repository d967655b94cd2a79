// The functions of lab 03_transpose's interface that a student writes (transpose.h), which the judge
// asks the planner for: each is called in the planner, with the judge's arguments, never in the
// judge. Linked only into the lab's planners (plan_03_transpose_<implementation>), with planner_main.cpp.
#include "transpose.h"
#include "planner.h"

const std::vector<workbook::StudentFunction>& workbook::lab_functions() {
  static const std::vector<StudentFunction> functions = {
      workbook::student_function("transpose_tiled", transpose_lab::transpose_tiled),
      workbook::student_function("transpose_padded", transpose_lab::transpose_padded),
      workbook::student_function("transpose_diagonal", transpose_lab::transpose_diagonal),
      workbook::student_function("transpose_at_copy_speed", transpose_lab::transpose_at_copy_speed),
      workbook::student_function("diagonal_tile_on_host", transpose_lab::diagonal_tile_on_host),
  };
  return functions;
}
