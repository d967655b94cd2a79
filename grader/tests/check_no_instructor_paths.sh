#!/usr/bin/env bash
# What a student reads beside their work (their labs, the student headers, the grader's code) names
# no file of a lab's instructor tree (solutions/NN_topic/...): a student's copy has no solutions/, so
# such a name points nowhere, and a reason a file gives lives in docs/ instead. The
# runner and the tests, which work on solutions/ where it is, are not read. CPU only.
#   check_no_instructor_paths.sh ROOT
set -uo pipefail
root=$1
cd "$root" || exit 2
found=$(grep -rnE 'solutions/[0-9][0-9]_' labs include grader/labs grader/harness grader/judge grader/planner \
          grader/protocol grader/audit 2>/dev/null)
if [ -n "$found" ]; then
  echo "FAIL: these lines name a file under solutions/, which a student's copy does not have (say what it is, or point into docs/):"
  echo "$found"
  exit 1
fi
echo "ok: nothing a student reads beside their work names a file under solutions/"
