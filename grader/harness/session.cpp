#include "session.h"

namespace workbook {

Session& session() {
  static Session instance;
  return instance;
}

// A failed row names the defence that failed it, in a column of its own.
void record(const StepRow& row) {
  StepRow kept = row;
  if (kept.verdict == Verdict::kFail) kept.defence = defence_named_in(kept.reason);
  session().rows.push_back(kept);
}

}  // namespace workbook
