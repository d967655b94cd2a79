#!/usr/bin/env bash
# A lab's judge (grader/judge/judge.h) from the outside, without a GPU: it lists the same steps as
# the starter's grader (the steps table is the lab's, whoever is graded), its judged calls
# (the stand-ins the build writes from the lab's header) are exactly the functions the lab's planner serves, and
# given a planner without the student's device code (or the reverse) it says what it needs, as it
# does for a machine-code dump (--sass) that follows no --device-code.
# The lab's given code (GIVEN, a library) is linked into the judge as into every grader: its
# functions are the lab's, not the student's, and are left out of the comparison.
# usage: check_judge_front.sh JUDGE STARTER_GRADER PLANNER NAMESPACE [GIVEN]
set -euo pipefail
judge=$1 starter=$2 planner=$3 namespace=$4 given=${5:-}
status=0
if ! diff <("$starter" --list-steps) <("$judge" --list-steps); then
  echo "FAIL: the judge's steps differ from the starter grader's (< starter, > judge)"
  status=1
fi
functions_of() { nm -C --defined-only "$1" | sed -nE "s/^[0-9a-f]+ T ${namespace}::([a-z_0-9]+)\(.*/\1/p" | sort -u; }
served=$("$planner" --list | sort)
judged=$(functions_of "$judge")
if [ -n "$given" ]; then judged=$(comm -23 <(echo "$judged") <(functions_of "$given")); fi
if [ "$served" != "$judged" ]; then
  echo "FAIL: the judged calls and the planner's functions differ (< planner, > judge):"
  diff <(echo "$served") <(echo "$judged") || true
  status=1
fi
# refused EXPECTED WORDS...: the judge given WORDS exits 2 (usage), saying EXPECTED.
first_step=$("$starter" --list-steps | head -1 | cut -f1)
refused() {
  local expected=$1 said code
  shift
  set +e
  said=$("$judge" "$@" --step="$first_step" 2>&1)
  code=$?
  set -e
  if [ "$code" != 2 ] || ! grep -q "$expected" <<<"$said"; then
    echo "FAIL: the judge given $* exited $code, saying: $said"
    status=1
  fi
}
refused "needs both --planner and --device-code" "--planner=$planner"
refused "needs both --planner and --device-code" "--device-code=$planner"
dump_misplaced="names the machine code the build dumped of the --device-code=FILE just before it"
refused "$dump_misplaced" "--planner=$planner" --sass=x.sass "--device-code=$planner"
refused "$dump_misplaced" "--planner=$planner" "--device-code=$planner" --sass=x.sass --sass=y.sass
[ "$status" = 0 ] && echo "ok: the judge lists the starter's steps, judges the planner's $(echo "$served" | wc -l) functions and needs both halves of a student"
exit "$status"
