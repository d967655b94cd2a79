// Compiled with the runner's include path: its own headers and the protocol.
#include "as_data.h"
#include "bars_profile.h"
#include "exit_codes.h"
#include "reports.h"
#include "rows.h"
