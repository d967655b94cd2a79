#!/usr/bin/env bash
# A step that needs a newer GPU is reported not applicable there, never failed: lab 02's copy-engine
# step (compute capability 9.0), graded as if on an 8.0 GPU with --as-compute-capability=80. The
# step's row and verdict say "n/a", the other steps are graded as usual and the run passes; a run of
# the step alone is skipped (77, as CTest and the workbook script read it); an untouched starter is
# still rejected on every step it is graded on; a GPU cannot be graded as newer than it is.
# GPU only (77 without one).
# usage: test_not_applicable.sh SOLUTION_GRADER STARTER_GRADER
set -uo pipefail
solution=$1 starter=$2
"$solution" --gpu-check >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
failures=0
run() {  # want_status pattern command...
  local want=$1 pattern=$2 output status=0
  shift 2
  output=$("$@" 2>&1) || status=$?
  if [ "$status" -eq "$want" ] && grep -qE -- "$pattern" <<<"$output"; then
    echo "ok: ${*: -2} -> $status"
  else
    echo "FAIL: $* exited $status (want $want) and printed:"; tail -n 25 <<<"$output" | sed 's/^/    /'
    echo "    (wanted it to match: $pattern)"
    failures=$((failures + 1))
  fi
}
both="--step=02.5,02.6"
run 0 "n/a   02.6 the copy engine: needs compute capability 9.0 or newer; this GPU is graded as 8.0" \
  "$solution" "$both" --correctness-only --seed=7 --as-compute-capability=80
run 0 "1 of 1 steps pass \(1 more not applicable on this GPU\)" \
  "$solution" "$both" --correctness-only --seed=7 --as-compute-capability=80
run 77 "not applicable: every step selected needs a newer GPU" \
  "$solution" --step=02.6 --correctness-only --seed=7 --as-compute-capability=80
run 0 "--expect-reject: 1 of 1 test cases failed as expected" \
  "$starter" "$both" --correctness-only --seed=7 --as-compute-capability=80 --expect-reject
run 2 "above this GPU's own" "$solution" --step=02.6 --as-compute-capability=990
[ "$failures" -eq 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "every check passed"
