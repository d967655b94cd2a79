// The grader program's modes that need no GPU (grader_options.h's answers_without_gpu): each answers
// from what the lab registered and returns the exit status; a file that cannot be read throws.
#pragma once

#include "harness/grader_options.h"

namespace workbook {

int answer_without_gpu(const Options& options);

}  // namespace workbook
