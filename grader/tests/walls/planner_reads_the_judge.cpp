// Compiled with the planner's include path, it must not compile: the planner, which runs a student's
// host code, knows nothing of the judge that checks its plans.
#include "judge/judge.h"
