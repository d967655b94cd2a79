// The planner's side of the trust boundary (shared/DESIGN.md): what a launcher asked for while
// workbook::launch() was planning (launch_log.h's planning_launches()), as the plan (plan.h) the
// judge replays. Each kernel is named as the driver names it (cudaFuncGetName), so that the judge
// finds it among the kernels it loaded from the student's object (replay.h).
#pragma once

#include "plan.h"

namespace workbook {

// The launches recorded since the last clear_recorded_launches(), as a plan, oldest first. Throws
// std::runtime_error when a recorded kernel has no name (it was not launched with
// workbook::launch(), or the CUDA runtime cannot start).
plan::Plan plan_of_recorded_launches();

}  // namespace workbook
