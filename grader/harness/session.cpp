#include "session.h"

namespace workbook {

Session& session() {
  static Session instance;
  return instance;
}

// A row a linked grader graded without the device trace says so, in the column a student and
// Gradescope read. A judge's rows never need it (session.h).
void record(const StepRow& row) {
  StepRow kept = row;
  if (kept.verdict == Verdict::kFail) kept.defence = defence_named_in(kept.reason);
  if (!session().device_trace && !session().judging && row.judged())
    kept.reason += kept.reason.empty() ? "graded without the device trace" : " (graded without the device trace)";
  session().rows.push_back(kept);
}

}  // namespace workbook
