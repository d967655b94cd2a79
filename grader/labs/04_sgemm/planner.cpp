// The functions of lab 04_sgemm's interface that a student writes (sgemm.h), which the judge
// asks the planner for: each is called in the planner, with the judge's arguments, never in the
// judge. Linked only into the lab's planners (plan_04_sgemm_<implementation>), with planner_main.cpp.
#include "sgemm.h"
#include "planner.h"

const std::vector<workbook::StudentFunction>& workbook::lab_functions() {
  static const std::vector<StudentFunction> functions = {
      workbook::student_function("sgemm_coalesced", sgemm_lab::sgemm_coalesced),
      workbook::student_function("sgemm_shared_tiles", sgemm_lab::sgemm_shared_tiles),
      workbook::student_function("sgemm_2_outputs_per_thread", sgemm_lab::sgemm_2_outputs_per_thread),
      workbook::student_function("sgemm_4_outputs_per_thread", sgemm_lab::sgemm_4_outputs_per_thread),
      workbook::student_function("sgemm_8_outputs_per_thread", sgemm_lab::sgemm_8_outputs_per_thread),
      workbook::student_function("sgemm_rank1_updates", sgemm_lab::sgemm_rank1_updates),
      workbook::student_function("sgemm_register_blocked", sgemm_lab::sgemm_register_blocked),
      workbook::student_function("sgemm_double_buffered", sgemm_lab::sgemm_double_buffered),
      workbook::student_function("sgemm_split_k", sgemm_lab::sgemm_split_k),
      workbook::student_function("sgemm_packed_pipeline", sgemm_lab::sgemm_packed_pipeline),
      workbook::student_function("sgemm_warp_specialized", sgemm_lab::sgemm_warp_specialized),
      workbook::student_function("sgemm_split_k_workspace_bytes", sgemm_lab::sgemm_split_k_workspace_bytes),
      workbook::student_function("sgemm_packed_pipeline_workspace_bytes", sgemm_lab::sgemm_packed_pipeline_workspace_bytes),
      workbook::student_function("sgemm_warp_specialized_workspace_bytes", sgemm_lab::sgemm_warp_specialized_workspace_bytes),
  };
  return functions;
}
