#!/usr/bin/env bash
# A lab's profile table from ncu's output recorded on a GPU (solutions/profiles/): the judge reads
# it with no GPU, and every counter the lab chooses has a value there, so each names a metric ncu
# really reports (the top stall reasons may have none above 0.05 cycles, shown as "-"). CPU only.
#   check_profile_report.sh JUDGE STEP NCU_OUTPUT
set -u
judge=$1 step=$2 output=$3
table=$("$judge" --profile-report="$step" --ncu-output="$output" 2>&1) || { echo "FAIL: the judge exited $?:"; echo "$table"; exit 1; }
echo "$table"
# The rows: from the header "counter ..." on, each unindented line is a counter and its value.
missing=$(printf '%s\n' "$table" | awk '/^counter / { rows = 1; next } rows && /^[^ ]/ && !/^top stall reasons/ && $NF == "-"')
if [ -n "$missing" ]; then
  echo "FAIL: counters with no value in the recorded output (a metric ncu does not report?):"
  echo "$missing"
  exit 1
fi
[[ "$table" == *"time in the step's kernels (us)"* ]] || { echo "FAIL: no kernel time"; exit 1; }
echo "ok: every counter of the lab has a value for $step"
