// Compiled with the runner's include path: its own headers and the protocol.
#include "protocol/as_data.h"
#include "protocol/bars_profile.h"
#include "protocol/exit_codes.h"
#include "protocol/rows.h"
#include "runner/reports.h"
