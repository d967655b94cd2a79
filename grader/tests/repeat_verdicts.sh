#!/usr/bin/env bash
# Grades the same implementation N times, each with its own seed, and passes when every step gets
# the same verdict every time: a grader whose verdicts flip on an honest kernel cannot be trusted.
#   repeat_verdicts.sh N GRADER [ARGS...]
# Exits 77 (CTest: skipped) when no GPU is visible.
set -u
times=$1 grader=$2
shift 2
status=0
"$grader" --gpu-check >/dev/null 2>&1 || status=$?
if [ "$status" -eq 77 ]; then echo "skipped: no CUDA GPU visible"; exit 77; fi

first=""
for run in $(seq 1 "$times"); do
  # The scorecard's last lines: "PASS  04.9 split-k: ..." per step.
  verdicts=$("$grader" "--seed=$((1000 + run))" "$@" 2>&1 | grep -E '^(PASS|FAIL)  ' | sed -E 's/^(PASS|FAIL)  ([^:]*):.*/\1 \2/')
  echo "run $run (seed $((1000 + run))):"
  printf '  %s\n' "$verdicts"
  if [ -z "$verdicts" ]; then echo "FAIL: run $run printed no verdicts"; exit 1; fi
  if [ -z "$first" ]; then first=$verdicts
  elif [ "$verdicts" != "$first" ]; then echo "FAIL: run $run's verdicts differ from run 1's"; exit 1; fi
done
echo "PASS: $times runs, the same verdict for every step every time"
