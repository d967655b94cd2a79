#!/usr/bin/env bash
# Runs a grader under one compute-sanitizer tool and judges the tool's summary.
#   sanitize.sh TOOL error SANITIZER GRADER [ARGS...]   passes when TOOL reports an error (a mutant)
#   sanitize.sh TOOL clean SANITIZER GRADER [ARGS...]   passes when it reports none and the grader passes
# TOOL is memcheck, racecheck or synccheck. Exits 77 (CTest: skipped) when no GPU is visible.
set -u
tool=$1 expect=$2 sanitizer=$3 grader=$4
shift 4

status=0
"$grader" --gpu-check >/dev/null 2>&1 || status=$?
if [ "$status" -eq 77 ]; then echo "skipped: no CUDA GPU visible"; exit 77; fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# racecheck's default report (analysis) groups its hazards; `--racecheck-report hazard` lists each
# one, and on a racing GEMM kernel that listing ran past ten minutes. At most 20 reports printed.
"$sanitizer" --tool "$tool" --print-limit 20 "$grader" "$@" >"$log" 2>&1 || status=$?
case "$tool" in
  racecheck) summary=$(grep -E 'RACECHECK SUMMARY' "$log" | tail -n 1)
             found=$(printf '%s\n' "$summary" | grep -oE '[0-9]+ hazard' | grep -oE '^[0-9]+') ;;
  memcheck|synccheck) summary=$(grep -E 'ERROR SUMMARY' "$log" | tail -n 1)
             found=$(printf '%s\n' "$summary" | grep -oE '[0-9]+ error' | grep -oE '^[0-9]+') ;;
  *) echo "usage: sanitize.sh memcheck|racecheck|synccheck error|clean SANITIZER GRADER [ARGS...]"; exit 2 ;;
esac
if [ -z "$summary" ]; then
  echo "FAIL: no $tool summary (exit status $status); the end of its output:"
  tail -n 30 "$log"
  exit 1
fi
echo "$summary"
case "$expect" in
  error)
    if [ "${found:-0}" -gt 0 ]; then
      grep -m 5 -E 'Race reported|hazard|Invalid|Barrier|error' "$log"
      echo "PASS: $tool found the defect"
      exit 0
    fi
    echo "FAIL: $tool reported nothing in a kernel that has its defect"
    exit 1 ;;
  clean)
    if [ "${found:-1}" -eq 0 ] && [ "$status" -eq 0 ]; then echo "PASS: $tool found nothing, and the grader passed"; exit 0; fi
    grep -m 10 -E 'Race reported|hazard|Invalid|Barrier|FAIL|error' "$log"
    echo "FAIL: $tool reported ${found:-?}, grader exit status $status"
    exit 1 ;;
  *) echo "usage: sanitize.sh memcheck|racecheck|synccheck error|clean SANITIZER GRADER [ARGS...]"; exit 2 ;;
esac
