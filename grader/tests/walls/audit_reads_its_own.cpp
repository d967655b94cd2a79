// Compiled with the audit's include path: its own headers.
#include "gpu_code.h"
#include "host_audit.h"
#include "machine_code.h"
