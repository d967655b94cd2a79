// Include mutant (the #include check): a header of the grader's, named from the checkout's top
// (grader/harness/...), as a student who has read the grader might. Never compiled: the check
// reads it before the compiler would, and says it is the workbook's own, not the student's.
#include "grader/harness/check.h"
