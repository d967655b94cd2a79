// Compiled with the planner's include path: its own header and the protocol it speaks.
#include "planner/planner.h"
#include "protocol/arguments.h"
#include "protocol/plan.h"
