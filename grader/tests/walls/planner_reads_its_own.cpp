// Compiled with the planner's include path: its own header and the protocol it speaks.
#include "arguments.h"
#include "plan.h"
#include "planner.h"
