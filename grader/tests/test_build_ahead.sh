#!/usr/bin/env bash
# grade-class builds each GPU's next student while the student before is graded (the default), in
# the other of the GPU's two build folders, so that their grading finds the build done. Three
# students of lab 02 on one slot (CPU or GPU): the first builds as grade does; the next two were
# built ahead (build-ahead.txt), their grading compiles none of their files (a grading that builds
# compiles each of the file's two halves once), and every student gets
# their row. With --no-build-ahead, each student's grading builds their file itself. On the CPU each
# grading ends with "no GPU visible", as grade-class says without one.
# usage: test_build_ahead.sh ROOT WORK_DIR
set -uo pipefail
root=$1 work=$2
rm -rf "$work"
export WORKBOOK_RESULTS="$work/results"  # the class's results are this test's own
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
for who in ann ben cat; do
  mkdir -p "$work/class/$who/labs/02_memory"
  cp "$root/labs/02_memory/memory.cu" "$work/class/$who/labs/02_memory/"
  echo "// $who's copy, $(date +%s%N)" >>"$work/class/$who/labs/02_memory/memory.cu"  # each a file of its own, new each run
done
chmod -R a+rX "$work"
# The judges are the checkout's, built once by grade-class: a student's build folder builds their
# files alone. A judge left in a slot's folder by an earlier build is removed, and must not come back.
preset_folders=("$root"/build/submissions-*)
for folder in "${preset_folders[@]}"; do rm -f "$folder/labs/02_memory/judge_02_memory"; done
# One GPU at most: the three share one slot, so two of them are built ahead.
first_gpu=${CUDA_VISIBLE_DEVICES:-0}
# grade_the_class OPTION...: grade-class on the one GPU, then each student's line and build checked.
grade_the_class() {
  local status ahead=0 who compiled
  CUDA_VISIBLE_DEVICES=${first_gpu%%,*} "$root/workbook" grade-class "$work/class" 02 --gpus all "$@" \
    >"$work/grade-class.log" 2>&1
  status=$?
  cat "$work/grade-class.log"
  [ "$status" -eq 0 ] || [ "$status" -eq 1 ] || [ "$status" -eq 77 ] || fail "grade-class $* exited $status"
  for who in ann ben cat; do
    grep -qE "^$who +" "$WORKBOOK_RESULTS/class/summary.txt" || fail "$who has no line in the summary"
    # Each compile of their file: its GPU half and its host half (cmake/StudentFile.cmake, _compile_students_file).
    compiles=$(grep -E "Building CUDA object .*class/$who/submission/taken/labs/02_memory/memory\.cu" "$WORKBOOK_RESULTS/class/$who/submission/build.log")
    compiled=$(grep -c . <<<"$compiles")
    if [ -f "$WORKBOOK_RESULTS/class/$who/build-ahead.txt" ]; then
      grep -q "built ahead in build/submissions-" "$WORKBOOK_RESULTS/class/$who/build-ahead.txt" || fail "$who's build ahead did not say where"
      [ "$compiled" -eq 0 ] && echo "ok: $who was built ahead, and their grading compiled nothing of theirs" ||
        fail "$who was built ahead, yet their grading compiled their file again"
      ahead=$((ahead + 1))
    else
      [ "$compiled" -eq 2 ] && grep -q "_gpu\.dir" <<<"$compiles" && grep -q "_host\.dir" <<<"$compiles" &&
        echo "ok: $who was built with their grading, each half of their file once" ||
        fail "$who's grading compiled their file $compiled times: $compiles"
    fi
  done
  built_ahead=$ahead
}

grade_the_class
[ "$built_ahead" -eq 2 ] && echo "ok: by default, two of three built ahead" || fail "by default, $built_ahead of three built ahead, not two"
grep -q "building the labs' judges once" "$work/grade-class.log" || fail "grade-class did not say it built the judges once"
for judge in "$root"/build/submissions-*/labs/02_memory/judge_02_memory; do
  [ -e "$judge" ] && fail "a student's build built a judge of its own: $judge"
done
echo "ok: no student's build folder holds a judge (the checkout's graded them all)"

# Each file changed again, so that nothing is left built from the run before.
for who in ann ben cat; do echo "// $who's copy, again $(date +%s%N)" >>"$work/class/$who/labs/02_memory/memory.cu"; done
grade_the_class --no-build-ahead
[ "$built_ahead" -eq 0 ] && echo "ok: with --no-build-ahead, each student built with their grading" ||
  fail "with --no-build-ahead, $built_ahead of three were built ahead"
echo "$failures failures"
[ "$failures" -eq 0 ]
