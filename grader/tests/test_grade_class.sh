#!/usr/bin/env bash
# grade-class over seven prepared submissions of lab 05 (class_fixtures.sh) gives each its verdict
# and its files: the solution passes every step, the untouched starter none, the partial ones what
# they finished (the slow one partial credit for its correct final step), the one that does not
# compile is graded to the end with its reason, a step that hangs or whose kernel faults fails alone
# (the steps after it pass, as they would alone), and the files a student may not edit are ignored.
# GPU only (77 without one).
# usage: test_grade_class.sh ROOT WORK_DIR
set -uo pipefail
root=$1 work=$2
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU' || { echo "no GPU: skipped"; exit 77; }
"$root/grader/tests/class_fixtures.sh" "$root" "$work/submissions" || exit 1
# The class's results are this test's own: an instructor's results/class is never touched.
export WORKBOOK_RESULTS="$work/results"
# The reference solutions (or files made from them) are handed in on purpose: graded, not refused as copies.
export WORKBOOK_GRADE_SOLUTION_COPIES=1
rm -rf "$WORKBOOK_RESULTS"
"$root/workbook" grade-class "$work/submissions" 05 --timeout 30 --seed 7 >"$work/grade-class.log" 2>&1
echo "grade-class exit code $?"
cat "$work/grade-class.log"
summary="$WORKBOOK_RESULTS/class/summary.txt" failures=0
expect() {  # name pattern what
  if grep -E "^$1 " "$summary" | grep -qE "$2"; then echo "ok: $1: $3"; else echo "FAIL: $1: expected $3"; failures=$((failures + 1)); fi
}
expect all_steps '5 of 5 +steps +score 5\.00' "every step, full score"
expect untouched '0 of 5 +steps +score 0\.00' "no step"
expect three_steps '3 of 5 +steps +score 3\.00' "05.1-05.3"
expect slow_final '4 of 5 +steps +score 4\.50' "four steps and half a point for the correct, slow 05.5"
expect does_not_compile 'does not compile' "its compiler errors, graded to the end"
expect hangs '4 of 5 +steps +score 4\.00.*hung' "05.1 stopped as hung, and every step after it graded as alone"
expect faults '4 of 5 +steps +score 4\.00' "05.2 failed for its fault, and every step after it graded as alone"
for name in all_steps untouched three_steps slow_final does_not_compile hangs faults; do
  [ -s "$WORKBOOK_RESULTS/class/$name/results.json" ] || { echo "FAIL: no results.json for $name"; failures=$((failures + 1)); }
done
grep -q '"leaderboard": \[{"name": "05_fft 05.5, % of cuFFT"' "$WORKBOOK_RESULTS/class/all_steps/results.json" ||
  { echo "FAIL: all_steps's results.json has no leaderboard entry"; failures=$((failures + 1)); }
grep -qx 'labs/05_fft/given.cuh' "$WORKBOOK_RESULTS/class/all_steps/submission/ignored.txt" ||
  { echo "FAIL: the submission's own given.cuh was not ignored"; failures=$((failures + 1)); }
[ "$(grep -c '^all_steps,05_fft,' "$WORKBOOK_RESULTS/class/class.csv")" -eq 5 ] ||
  { echo "FAIL: class.csv has not five lines for all_steps"; failures=$((failures + 1)); }
echo "$failures failures"
[ "$failures" -eq 0 ]
