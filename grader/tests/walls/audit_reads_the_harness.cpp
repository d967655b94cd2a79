// Compiled with the audit's include path, it must not compile: the checks that run no student code
// stand on nothing of the grader's.
#include "harness/skeleton.h"
