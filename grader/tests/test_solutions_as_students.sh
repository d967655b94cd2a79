#!/usr/bin/env bash
# The reference solutions graded the way students' files are, on the GPU, every step of each lab:
#   - through --submission (the instructor's path): a build folder of its own, the student's file
#     compiled under limited.sh, its GPU code checked, judged (its host code in a planner), confined;
#   - from a student's own checkout (the student's path): a copy of the workbook without solutions/,
#     each lab's labs/NN_topic/<topic>.cu replaced, graded with ./workbook grade there.
# Each solution is handed in as one file, as a student hands a lab in (one_file_solution.py). Every
# step must pass on both paths: a student's file is compiled and graded as the reference was.
#   test_solutions_as_students.sh ROOT LAB...     e.g. ROOT 02_memory 04_sgemm
# Exit 77 without a GPU. WORKBOOK_KEEP_SCORECARDS=DIR keeps each path's output there.
set -u
root=$1
shift
[ $# -gt 0 ] || { echo "usage: test_solutions_as_students.sh ROOT LAB..." >&2; exit 2; }
nvidia-smi -L 2>/dev/null | grep -q '^GPU' || { echo "no CUDA GPU visible: nothing graded"; exit 77; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
chmod 755 "$scratch"  # as root, steps run as users of their own, who must reach the student's checkout's graders
export WORKBOOK_RESULTS="$scratch/results"  # its gradings' results are this test's own
# The reference solutions (or files made from them) are handed in on purpose: graded, not refused as copies.
export WORKBOOK_GRADE_SOLUTION_COPIES=1
failures=0
topic_of() { sed -nE 's/.*TOPIC ([A-Za-z0-9_]+).*/\1/p' "$root/labs/$1/CMakeLists.txt" | head -n 1; }

# The solutions as a student's files: labs/NN_topic/<topic>.cu, one file each.
handed_in="$scratch/solutions-as-students"
steps=0
for lab in "$@"; do
  topic=$(topic_of "$lab")
  [ -f "$root/solutions/$lab/$topic.cu" ] || { echo "no solution for $lab"; exit 2; }
  python3 "$root/grader/tests/one_file_solution.py" "$root/solutions/$lab/$topic.cu" "$handed_in/labs/$lab/$topic.cu" || exit 2
  steps=$((steps + $(grep -oE 'TODO\([0-9]{2}\.[0-9]+\)' "$root/labs/$lab/$topic.h" | sort -u | wc -l)))
done

# grade PATH_NAME FOLDER ARGUMENTS...: ./workbook grade in FOLDER passes every step of the labs.
grade() {
  local path=$1 folder=$2
  shift 2
  local output="$scratch/$path.out" status=0
  echo "=== $path: ./workbook grade $*"
  (cd "$folder" && ./workbook grade "$@") >"$output" 2>&1 || status=$?
  cat "$output"
  [ -z "${WORKBOOK_KEEP_SCORECARDS:-}" ] || { mkdir -p "$WORKBOOK_KEEP_SCORECARDS" && cp "$output" "$WORKBOOK_KEEP_SCORECARDS/$path.txt"; }
  local passed
  passed=$(grep -cE '^\[workbook\] [0-9]{2}_[a-z_]+ [0-9]{2}\.[0-9]+ .* \.\.\. pass$' "$output")
  if [ "$status" -eq 0 ] && [ "$passed" -eq "$steps" ]; then
    echo "ok: $path: $passed of $steps steps pass"
  else
    echo "FAIL: $path: exit $status, $passed of $steps steps pass"
    failures=$((failures + 1))
  fi
}

grade submission "$root" "$@" --submission "$handed_in"

# A student's checkout: the workbook as handed out (no solutions/, no build, no results), their files
# in labs/.
student="$scratch/student"
mkdir -p "$student"
tar -C "$root" --exclude=./build --exclude=./results --exclude=./solutions --exclude=./.git --exclude=./.scratch -cf - . |
  tar -C "$student" -xf -
cp -r "$handed_in/labs/." "$student/labs/"
grade student-checkout "$student" "$@"

[ "$failures" -eq 0 ] && echo "both paths: every step of $* passes" || exit 1
