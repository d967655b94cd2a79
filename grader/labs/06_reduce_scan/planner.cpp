// The functions of lab 06_reduce_scan's interface that a student writes (reduce_scan.h), which the judge
// asks the planner for: each is called in the planner, with the judge's arguments, never in the
// judge. Linked only into the lab's planners (plan_06_reduce_scan_<implementation>), with planner_main.cpp.
#include "reduce_scan.h"
#include "planner.h"

const std::vector<workbook::StudentFunction>& workbook::lab_functions() {
  static const std::vector<StudentFunction> functions = {
      workbook::student_function("reduce_interleaved", reduce_scan_lab::reduce_interleaved),
      workbook::student_function("reduce_sequential", reduce_scan_lab::reduce_sequential),
      workbook::student_function("reduce_first_add_during_load", reduce_scan_lab::reduce_first_add_during_load),
      workbook::student_function("reduce_last_warp_shuffled", reduce_scan_lab::reduce_last_warp_shuffled),
      workbook::student_function("reduce_unrolled", reduce_scan_lab::reduce_unrolled),
      workbook::student_function("reduce_at_cub_speed", reduce_scan_lab::reduce_at_cub_speed),
      workbook::student_function("scan_blelloch", reduce_scan_lab::scan_blelloch),
      workbook::student_function("scan_hillis_steele", reduce_scan_lab::scan_hillis_steele),
      workbook::student_function("scan_register_blocked", reduce_scan_lab::scan_register_blocked),
      workbook::student_function("scan_decoupled_look_back", reduce_scan_lab::scan_decoupled_look_back),
      workbook::student_function("reduce_workspace_bytes", reduce_scan_lab::reduce_workspace_bytes),
      workbook::student_function("scan_workspace_bytes", reduce_scan_lab::scan_workspace_bytes),
  };
  return functions;
}
