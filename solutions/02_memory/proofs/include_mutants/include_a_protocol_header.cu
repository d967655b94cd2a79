// Include mutant (the #include check): a header of the grader's by its bare name, as found in one of
// the grader's folders (grader/protocol/plan.h: what crosses between planner and judge). The build
// would not find it on a student's include path; the check says why, before the compiler would.
#include "plan.h"
