// The functions of lab 05_fft's interface that a student writes (fft.h), which the judge
// asks the planner for: each is called in the planner, with the judge's arguments, never in the
// judge. Linked only into the lab's planners (plan_05_fft_<implementation>), with planner_main.cpp.
#include "fft.h"
#include "planner.h"

const std::vector<workbook::StudentFunction>& workbook::lab_functions() {
  static const std::vector<StudentFunction> functions = {
      WORKBOOK_STUDENT_FUNCTION(fft_lab::fft_2_outputs_per_thread),
      WORKBOOK_STUDENT_FUNCTION(fft_lab::fft_4_outputs_per_thread),
      WORKBOOK_STUDENT_FUNCTION(fft_lab::fft_8_outputs_per_thread),
      WORKBOOK_STUDENT_FUNCTION(fft_lab::fft_16_outputs_per_thread),
      WORKBOOK_STUDENT_FUNCTION(fft_lab::fft_at_cufft_speed),
  };
  return functions;
}
