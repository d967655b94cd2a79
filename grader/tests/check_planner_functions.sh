#!/usr/bin/env bash
# The planner of a lab serves exactly the functions the student's file defines in the lab's namespace
# (the list the build writes from the lab's header, against the starter's object): a function left out of the list
# could never be asked for, and a name in it that the file does not define would not link.
# usage: check_planner_functions.sh PLANNER LIBRARY NAMESPACE
set -euo pipefail
planner=$1 library=$2 namespace=$3
served=$("$planner" --list | sort)
defined=$(nm -C --defined-only "$library" | sed -nE "s/^[0-9a-f]+ T ${namespace}::([a-z_0-9]+)\(.*/\1/p" | sort -u)
if [ "$served" != "$defined" ]; then
  echo "FAIL: the planner's functions and the file's differ (< planner, > $library):"
  diff <(echo "$served") <(echo "$defined") || true
  exit 1
fi
echo "ok: the planner serves the file's $(echo "$served" | wc -l) functions of ${namespace}"
