// The rows a step's process reports, taken only when they are to be believed. The process runs the
// student's code: it writes its rows into a file of its own working folder, and the runner reads
// them from there, checking that the file is a plain file of well-formed rows of that step alone.
// Plain C++.
#pragma once

#include <string>
#include <vector>

#include "report.h"

namespace workbook::runner {

// The rows in `path` of step `step` (its full name) of `lab`; or one failed row that says why the
// file is not to be believed (a link, not a plain file, too large, another step's rows, no row).
std::vector<StepRow> collect_rows(const std::string& path, const std::string& lab, const std::string& step);

// A failed row for a step that could not report itself: it crashed, hung, did not compile, or its
// code was refused.
StepRow failed_row(const std::string& lab, const std::string& step, const std::string& reason);

}  // namespace workbook::runner
