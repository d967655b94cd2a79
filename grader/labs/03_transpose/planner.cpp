// The functions of lab 03_transpose's interface that a student writes (transpose.h), which the judge
// asks the planner for: each is called in the planner, with the judge's arguments, never in the
// judge. Linked only into the lab's planners (plan_03_transpose_<implementation>), with planner_main.cpp.
#include "transpose.h"
#include "planner.h"

const std::vector<workbook::StudentFunction>& workbook::lab_functions() {
  static const std::vector<StudentFunction> functions = {
      WORKBOOK_STUDENT_FUNCTION(transpose_lab::transpose_tiled),
      WORKBOOK_STUDENT_FUNCTION(transpose_lab::transpose_padded),
      WORKBOOK_STUDENT_FUNCTION(transpose_lab::transpose_diagonal),
      WORKBOOK_STUDENT_FUNCTION(transpose_lab::transpose_at_copy_speed),
      WORKBOOK_STUDENT_FUNCTION(transpose_lab::diagonal_tile_on_host),
  };
  return functions;
}
