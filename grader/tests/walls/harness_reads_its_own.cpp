// Compiled with the harness's include path: its own headers, the interface it knows the judge by,
// the protocol and the audit's machine-code reader.
#include "audit/machine_code.h"
#include "harness/judged_code.h"
#include "harness/skeleton.h"
#include "protocol/rows.h"
