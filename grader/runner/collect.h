// The rows a step's process reports, taken only when they are to be believed. The process runs the
// student's code: it writes its rows into a file of its own working folder, and the runner reads
// them from there, checking that the file is a plain file of well-formed rows of that step alone.
// Plain C++.
#pragma once

#include <string>
#include <vector>

#include "protocol/rows.h"

namespace workbook::runner {

// The rows in `path` of `step`; or one failed row that says why the file is not to be believed (a link, not a plain
// file, too large, another step's rows, no row).
std::vector<StepRow> collect_rows(const std::string& path, const LabStep& step);

// The rows a judge wrote for `steps` (of one lab), graded one after another in one process,
// each step's rows written as it ended: rows[k] is steps[k]'s, empty for a step that has reported
// nothing (yet). Throws std::runtime_error, saying why, where the file is not to be believed (a link,
// not a plain file, too large, a row of a step not asked for, a malformed line).
std::vector<std::vector<StepRow>> rows_of_steps(const std::string& path, const std::vector<LabStep>& steps);

// What a judge process that graded `steps` (in order) accounted for, once it ended with `status`:
// every step up to the last that reported (a step before it that reported nothing fails with no
// result); then, where the process was stopped in a step (crashed, or hung: `stopped_why` says so,
// and is empty where it ended on its own), that step fails with `stopped_why`; where it stopped
// after a step left the CUDA context unusable (kExitContextLost), nothing more; where it ended on
// its own, each step left fails as not graded (`not_graded_why`). The steps after `steps_done` are
// graded in a new process. `reported` is rows_of_steps()'s answer.
struct Accounted {
  std::vector<StepRow> rows;
  std::size_t steps_done = 0;
};
Accounted account_for_steps(const std::vector<std::vector<StepRow>>& reported, const std::vector<LabStep>& steps,
                            int status, const std::string& stopped_why, const std::string& not_graded_why);

// A failed row for a step that could not report itself: it crashed, hung, did not compile, or its
// code was refused.
StepRow failed_row(const LabStep& step, const std::string& reason);

}  // namespace workbook::runner
