// The functions of lab 04_sgemm's interface that a student writes (sgemm.h), which the judge
// asks the planner for: each is called in the planner, with the judge's arguments, never in the
// judge. Linked only into the lab's planners (plan_04_sgemm_<implementation>), with planner_main.cpp.
#include "sgemm.h"
#include "planner.h"

const std::vector<workbook::StudentFunction>& workbook::lab_functions() {
  static const std::vector<StudentFunction> functions = {
      WORKBOOK_STUDENT_FUNCTION(sgemm_lab::sgemm_coalesced),
      WORKBOOK_STUDENT_FUNCTION(sgemm_lab::sgemm_shared_tiles),
      WORKBOOK_STUDENT_FUNCTION(sgemm_lab::sgemm_2_outputs_per_thread),
      WORKBOOK_STUDENT_FUNCTION(sgemm_lab::sgemm_4_outputs_per_thread),
      WORKBOOK_STUDENT_FUNCTION(sgemm_lab::sgemm_8_outputs_per_thread),
      WORKBOOK_STUDENT_FUNCTION(sgemm_lab::sgemm_rank1_updates),
      WORKBOOK_STUDENT_FUNCTION(sgemm_lab::sgemm_register_blocked),
      WORKBOOK_STUDENT_FUNCTION(sgemm_lab::sgemm_double_buffered),
      WORKBOOK_STUDENT_FUNCTION(sgemm_lab::sgemm_split_k),
      WORKBOOK_STUDENT_FUNCTION(sgemm_lab::sgemm_packed_pipeline),
      WORKBOOK_STUDENT_FUNCTION(sgemm_lab::sgemm_warp_specialized),
      WORKBOOK_STUDENT_FUNCTION(sgemm_lab::sgemm_split_k_workspace_bytes),
      WORKBOOK_STUDENT_FUNCTION(sgemm_lab::sgemm_packed_pipeline_workspace_bytes),
      WORKBOOK_STUDENT_FUNCTION(sgemm_lab::sgemm_warp_specialized_workspace_bytes),
  };
  return functions;
}
