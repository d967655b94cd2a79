#!/usr/bin/env bash
# `./workbook list` reads each lab's steps and bars from its handout's table of bars (written from
# the graders by scripts/bar_tables.py), so it builds no judge: what it prints must be, step for
# step, what the starters' graders list (without a GPU: the built-in bars).
#   check_list_from_handouts.sh ROOT BUILD_DIR
set -u
root=$1 build=$2
WORKBOOK_RESULTS=$(mktemp -d)  # list's log is this test's own, not the checkout's results/
export WORKBOOK_RESULTS
trap 'rm -rf "$WORKBOOK_RESULTS"' EXIT
listed=$(cd "$root" && CUDA_VISIBLE_DEVICES= ./workbook list 2>&1) || { echo "FAIL: ./workbook list failed:"; echo "$listed"; exit 1; }
from_list=$(printf '%s\n' "$listed" | grep -E '^  [0-9]{2}\.' | sed -E 's/^  ([0-9.]+) +(.*[^ ]) {2,}(.*)$/\1\t\3/')
from_graders=$(for lab in $(cd "$root/labs" && ls -d [0-9][0-9]_*); do "$build/labs/$lab/grade_${lab}_starter" --list-steps | cut -f1,3; done)
if [ "$from_list" = "$from_graders" ]; then
  echo "ok: list shows the graders' $(printf '%s\n' "$from_graders" | wc -l) steps and bars, read from the handouts"
else
  echo "FAIL: list and the graders differ:"; diff <(printf '%s\n' "$from_list") <(printf '%s\n' "$from_graders"); exit 1
fi
if grep -q 'building' <<<"$listed"; then echo "FAIL: list built something:"; echo "$listed" | grep building; exit 1; fi
echo "ok: list built nothing"
