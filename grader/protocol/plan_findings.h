// What a judge's --plan-check found (grader/harness/plan_check.h), as it tells the runner: a line a
// finding, after the judge's other output, "[workbook] plan-check: 02.1, 02.3: WHAT", the steps it
// is of, then what a student reads. One writer (the judge's main) and one reader (the runner, which
// shows the findings of the steps it was asked to grade), both here. Plain C++.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace workbook {

struct PlanFinding {
  std::vector<std::string> steps;  // "02.1", ...: at least one
  std::string what;                // one line: "several floats per thread, n = 0 at ...: why"
};

std::string plan_finding_line(const PlanFinding& finding);
// Nothing for a line that is no finding (the judge's other output).
std::optional<PlanFinding> plan_finding_from_line(std::string_view line);

}  // namespace workbook
