#!/usr/bin/env bash
# grade-class --slurm on a real single-node Slurm (slurm_node.sh: Debian's slurm-wlm and munge,
# started here and stopped after): a class of three lab 05 submissions in two array tasks, one of
# which is cancelled at once. Every student gets a row: the cancelled task's student a failed one
# that says why, the others what grading gives them here (on a machine with no GPU: built, then
# "no GPU visible", the path a grading takes today); the merge, run after the array however it
# ended, writes the summary, the class CSV and the gradebook. Checks the plumbing, not speed.
# usage: test_grade_class_slurm.sh ROOT WORK_DIR
set -uo pipefail
root=$1 work=$2
for tool in slurmctld slurmd munged sbatch scancel squeue sinfo; do
  command -v "$tool" >/dev/null 2>&1 || { echo "no $tool (Debian's slurm-wlm and munge): skipped"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "a Slurm node of its own needs root here: skipped"; exit 77; }
rm -rf "$work"; mkdir -p "$work"
export WORKBOOK_RESULTS="$work/results"  # the class's results are this test's own
# The reference solutions (or files made from them) are handed in on purpose: graded, not refused as copies.
export WORKBOOK_GRADE_SOLUTION_COPIES=1
node=$work/slurm
eval "$("$root/grader/tests/slurm_node.sh" start "$node")" || exit 1
trap '"$root/grader/tests/slurm_node.sh" stop "$node"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

for name in alice bob carol; do mkdir -p "$work/class/$name/labs/05_fft"; done
cp "$root/solutions/05_fft/fft.cu" "$work/class/alice/labs/05_fft/" 2>/dev/null || cp "$root/labs/05_fft/fft.cu" "$work/class/alice/labs/05_fft/"
cp "$root/labs/05_fft/fft.cu" "$work/class/bob/labs/05_fft/"
cp "$root/labs/05_fft/fft.cu" "$work/class/carol/labs/05_fft/"
# Two tasks: task 0 grades alice and carol, task 1 bob; task 1 is cancelled as soon as it is queued.
"$root/workbook" grade-class "$work/class" 05 --seed 7 --slurm --slurm-tasks 2 --gres none --time 00:20:00 \
  >"$work/submit.log" 2>&1
status=$?
cat "$work/submit.log"
[ "$status" -eq 0 ] || fail "grade-class --slurm exited $status"
array=$(sed -n 's/.*job array \([0-9]*\) .*/\1/p' "$work/submit.log")
merge=$(sed -n 's/.*the merge, job \([0-9]*\),.*/\1/p' "$work/submit.log")
[ -n "$array" ] && [ -n "$merge" ] || { fail "no job ids in what --slurm said"; exit 1; }
scancel "${array}_1"
for _ in $(seq 1 300); do squeue -h -j "$array,$merge" 2>/dev/null | grep -q . || break; sleep 3; done
squeue -h -j "$array,$merge" 2>/dev/null | grep -q . && fail "the jobs did not end within 15 minutes"

class=$WORKBOOK_RESULTS/class
cat "$class/summary.txt"
for name in alice bob carol; do
  grep -qE "^$name " "$class/summary.txt" || fail "no summary line for $name"
  grep -q "^$name," "$class/class.csv" || fail "no class.csv row for $name"
  grep -q "^$name," "$class/gradebook.csv" || fail "no gradebook row for $name"
  [ -s "$class/$name/results.json" ] || [ "$name" = bob ] || fail "no results.json for $name"
done
grep -E "^bob " "$class/summary.txt" | grep -q "its Slurm task (job $array, task 1) ended before grading it" ||
  fail "bob's line does not say his task ended before grading him"
grep "^bob," "$class/class.csv" | grep -q ',FAIL,' || fail "bob's row is not a failure"
[ -s "$class/bob/results.json" ] && grep -q 'not graded: its Slurm task' "$class/bob/results.json" ||
  fail "bob's results.json does not say why he was not graded"
for name in alice carol; do
  [ -f "$class/$name/exit-status" ] || fail "$name's task left no exit status"
  grep -E "^$name " "$class/summary.txt" | grep -qE "no GPU visible|steps +score" || fail "$name was not graded by task 0"
done
[ -s "$class/slurm/task-0.out" ] || fail "task 0 left no log"
grep -q "seed 7 for every submission" "$class/summary.txt" || fail "the summary does not give the class's seed"
echo "$failures failures"
[ "$failures" -eq 0 ]
