// The functions of lab 06_reduce_scan's interface that a student writes (reduce_scan.h), which the judge
// asks the planner for: each is called in the planner, with the judge's arguments, never in the
// judge. Linked only into the lab's planners (plan_06_reduce_scan_<implementation>), with planner_main.cpp.
#include "reduce_scan.h"
#include "planner.h"

const std::vector<workbook::StudentFunction>& workbook::lab_functions() {
  static const std::vector<StudentFunction> functions = {
      WORKBOOK_STUDENT_FUNCTION(reduce_scan_lab::reduce_interleaved),
      WORKBOOK_STUDENT_FUNCTION(reduce_scan_lab::reduce_sequential),
      WORKBOOK_STUDENT_FUNCTION(reduce_scan_lab::reduce_first_add_during_load),
      WORKBOOK_STUDENT_FUNCTION(reduce_scan_lab::reduce_last_warp_shuffled),
      WORKBOOK_STUDENT_FUNCTION(reduce_scan_lab::reduce_unrolled),
      WORKBOOK_STUDENT_FUNCTION(reduce_scan_lab::reduce_at_cub_speed),
      WORKBOOK_STUDENT_FUNCTION(reduce_scan_lab::scan_blelloch),
      WORKBOOK_STUDENT_FUNCTION(reduce_scan_lab::scan_hillis_steele),
      WORKBOOK_STUDENT_FUNCTION(reduce_scan_lab::scan_register_blocked),
      WORKBOOK_STUDENT_FUNCTION(reduce_scan_lab::scan_decoupled_look_back),
      WORKBOOK_STUDENT_FUNCTION(reduce_scan_lab::reduce_workspace_bytes),
      WORKBOOK_STUDENT_FUNCTION(reduce_scan_lab::scan_workspace_bytes),
  };
  return functions;
}
