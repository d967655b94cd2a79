// Compiled with the harness's include path: its own headers, the interface it knows the judge by,
// the protocol and the audit's machine-code reader.
#include "judged_code.h"
#include "machine_code.h"
#include "rows.h"
#include "skeleton.h"
