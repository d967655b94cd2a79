// Compiled with the runner's include path: what the runner may read of the grader, the protocol.
#include "as_data.h"
#include "bars_profile.h"
#include "exit_codes.h"
#include "reports.h"
#include "rows.h"
