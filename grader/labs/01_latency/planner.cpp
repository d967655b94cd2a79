// The functions of lab 01_latency's interface that a student writes (latency.h), which the judge
// asks the planner for: each is called in the planner, with the judge's arguments, never in the
// judge. Linked only into the lab's planners (plan_01_latency_<implementation>), with planner_main.cpp.
#include "latency.h"
#include "planner.h"

const std::vector<workbook::StudentFunction>& workbook::lab_functions() {
  static const std::vector<StudentFunction> functions = {
      WORKBOOK_STUDENT_FUNCTION(latency_lab::measure_fma_latency),
      WORKBOOK_STUDENT_FUNCTION(latency_lab::measure_load_latency),
      WORKBOOK_STUDENT_FUNCTION(latency_lab::occupancy_of),
      WORKBOOK_STUDENT_FUNCTION(latency_lab::fma_with_ilp),
  };
  return functions;
}
