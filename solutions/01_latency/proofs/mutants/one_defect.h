// A mutant of lab 01_latency has its defect in one step. Its other steps throw not_this_mutant(),
// a clean failure, so that the grader rejects every step (--expect-reject) and the one that counts
// for the defect's own reason.
#pragma once

#include <string>

#include "workbook/cuda.h"

namespace latency_mutant {
[[noreturn]] inline void not_this_mutant(const char* step) {
  throw workbook::NotImplemented(std::string("this mutant's defect is in ") + step + " only");
}
}  // namespace latency_mutant
