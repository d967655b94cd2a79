// Compiled with the harness's include path, it must not compile: the harness, and every lab's
// grader that links it, knows the judge only as judged_code.h.
#include "judge/judge.h"
