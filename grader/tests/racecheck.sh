#!/usr/bin/env bash
# Runs a grader under compute-sanitizer's racecheck and judges its summary.
#   racecheck.sh race  SANITIZER GRADER [ARGS...]   passes when racecheck reports a hazard
#   racecheck.sh clean SANITIZER GRADER [ARGS...]   passes when it reports none and the grader passes
# Exits 77 (CTest: skipped) when no GPU is visible.
set -u
expect=$1 sanitizer=$2 grader=$3
shift 3

status=0
"$grader" --gpu-check >/dev/null 2>&1 || status=$?
if [ "$status" -eq 77 ]; then echo "skipped: no CUDA GPU visible"; exit 77; fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# The default report (analysis) groups the hazards; --racecheck-report hazard lists each one, and on
# a racing GEMM kernel that listing ran past ten minutes. At most 20 reports are printed.
"$sanitizer" --tool racecheck --print-limit 20 "$grader" "$@" >"$log" 2>&1 || status=$?
summary=$(grep -E 'RACECHECK SUMMARY' "$log" | tail -n 1)
if [ -z "$summary" ]; then
  echo "FAIL: no racecheck summary (exit status $status); the end of its output:"
  tail -n 30 "$log"
  exit 1
fi
hazards=$(printf '%s\n' "$summary" | grep -oE '[0-9]+ hazard' | grep -oE '^[0-9]+')
echo "$summary"
case "$expect" in
  race)
    if [ "${hazards:-0}" -gt 0 ]; then
      grep -m 3 -E 'Race reported|hazard' "$log"
      echo "PASS: racecheck found the race"
      exit 0
    fi
    echo "FAIL: racecheck reported no hazard in a kernel that races"
    exit 1 ;;
  clean)
    if [ "${hazards:-1}" -eq 0 ] && [ "$status" -eq 0 ]; then echo "PASS: no race, and the grader passed"; exit 0; fi
    grep -m 10 -E 'Race reported|hazard|FAIL|error' "$log"
    echo "FAIL: racecheck found $hazards hazards, grader exit status $status"
    exit 1 ;;
  *) echo "usage: racecheck.sh race|clean SANITIZER GRADER [ARGS...]"; exit 2 ;;
esac
