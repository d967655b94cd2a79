// Compiled with the audit's include path: its own headers.
#include "audit/gpu_code.h"
#include "audit/host_audit.h"
#include "audit/machine_code.h"
