// Compiled with the runner's include path, it must not compile: the runner reads the judges' rows
// through the protocol, never the harness that makes them.
#include "harness/skeleton.h"
