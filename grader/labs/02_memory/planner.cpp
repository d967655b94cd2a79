// The functions of lab 02_memory's interface that a student writes (memory.h), which the judge
// asks the planner for: each is called in the planner, with the judge's arguments, never in the
// judge. Linked only into the lab's planners (plan_02_memory_<implementation>), with planner_main.cpp.
#include "memory.h"
#include "planner.h"

const std::vector<workbook::StudentFunction>& workbook::lab_functions() {
  static const std::vector<StudentFunction> functions = {
      WORKBOOK_STUDENT_FUNCTION(memory_lab::copy_several_floats),
      WORKBOOK_STUDENT_FUNCTION(memory_lab::copy_float2),
      WORKBOOK_STUDENT_FUNCTION(memory_lab::copy_float4),
      WORKBOOK_STUDENT_FUNCTION(memory_lab::copy_many_float4),
      WORKBOOK_STUDENT_FUNCTION(memory_lab::copy_at_memcpy_speed),
      WORKBOOK_STUDENT_FUNCTION(memory_lab::copy_with_copy_engine),
  };
  return functions;
}
