// Include mutant (the #include check): a header of the grader's by its folder, as the grader's own
// files name it (grader/harness/skeleton.h, the step-grading skeleton). The build would not find it
// on a student's include path; the check says why, before the compiler would.
#include "harness/skeleton.h"
