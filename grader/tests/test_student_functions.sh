#!/usr/bin/env bash
# The build reads a lab's student functions from its header's `// TODO(NN.k)` lines
# (grader/protocol/student_functions.cpp). Each lab's own header is proved by the starter's tests
# (the planner serves what the file defines, the judge's stand-ins are those functions); here, the
# lines it must refuse with a message that says what to write, and the two lists it writes for a
# header that holds both kinds of function (a launcher and an answer).
#   test_student_functions.sh WRITER
set -u
writer=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failures=0

header() {  # header NAME LINE...: a lab header whose namespace holds the given lines
  local name=$1
  shift
  { echo '#pragma once'; echo 'namespace toy_lab {'; printf '%s\n' "$@"; echo '}  // namespace toy_lab'; } >"$scratch/$name.h"
}

# expect_refused NAME WORDS LINE...: the writer refuses the header, its message holding WORDS
expect_refused() {
  local name=$1 words=$2
  shift 2
  header "$name" "$@"
  local said status=0
  said=$("$writer" "$scratch/$name.h" "labs/07_toy/$name.h" "$scratch/p.cpp" "$scratch/j.cpp" 2>&1) || status=$?
  if [ "$status" -ne 0 ] && grep -qF -- "$words" <<<"$said" && grep -qF "labs/07_toy/$name.h:" <<<"$said"; then
    echo "ok: $name refused: $(head -1 <<<"$said")"
  else
    echo "FAIL: $name: exit $status, expected a refusal saying '$words', said: $said"
    failures=$((failures + 1))
  fi
}

expect_refused split_line "whole on that line" \
  'void toy_split(const ToyProblem& problem,' '               cudaStream_t stream);  // TODO(07.1)'
expect_refused unnamed "name every parameter" 'void toy_unnamed(const ToyProblem&, cudaStream_t stream);  // TODO(07.1)'
expect_refused no_stream "either launches" 'void toy_no_stream(const ToyProblem& problem);  // TODO(07.1)'
expect_refused answer_with_stream "either launches" 'int toy_answer(const ToyProblem& shape, cudaStream_t stream);  // TODO(07.1)'
expect_refused twice "marked twice" 'void toy_twice(const ToyProblem& problem, cudaStream_t stream);  // TODO(07.1)' \
  'void toy_twice(const ToyProblem& problem, cudaStream_t stream);  // TODO(07.2)'
expect_refused template_type "template" 'void toy_vector(std::pair<int, int> sizes, cudaStream_t stream);  // TODO(07.1)'
expect_refused nothing "nothing for a student to write" 'void given_only(const ToyProblem& problem, cudaStream_t stream);'

# A header with a launcher, an answer, and a given function (no TODO mark, so not the student's).
header good 'void toy_launch(const ToyProblem& problem, cudaStream_t stream);  // TODO(07.1)' \
  'void given_copy(const ToyProblem& problem, cudaStream_t stream);' \
  'std::size_t toy_workspace_bytes(const ToyProblem& shape, unsigned tiles);  // TODO(07.2), its workspace'
if "$writer" "$scratch/good.h" labs/07_toy/good.h "$scratch/p.cpp" "$scratch/j.cpp"; then
  served=$(grep -oE 'WORKBOOK_STUDENT_FUNCTION\([a-z_:]+\)' "$scratch/p.cpp" | tr '\n' ' ')
  if [ "$served" = "WORKBOOK_STUDENT_FUNCTION(toy_lab::toy_launch) WORKBOOK_STUDENT_FUNCTION(toy_lab::toy_workspace_bytes) " ]; then
    echo "ok: the planner serves the two marked functions, not the given one"
  else
    echo "FAIL: the planner's list: $served"; failures=$((failures + 1))
  fi
  if grep -qF 'auto toy_lab::toy_launch(const ToyProblem& problem, cudaStream_t stream) -> void {' "$scratch/j.cpp" &&
     grep -qF 'workbook::judged_launch(__func__, stream, problem);' "$scratch/j.cpp" &&
     grep -qF 'auto toy_lab::toy_workspace_bytes(const ToyProblem& shape, unsigned tiles) -> std::size_t {' "$scratch/j.cpp" &&
     grep -qF 'return workbook::judged_answer<std::size_t>(__func__, shape, tiles);' "$scratch/j.cpp" &&
     ! grep -q given_copy "$scratch/j.cpp"; then
    echo "ok: the judge's stand-ins are defined by their qualified names, each sending its own name and arguments"
  else
    echo "FAIL: the judge's stand-ins:"; cat "$scratch/j.cpp"; failures=$((failures + 1))
  fi
  # Written again from the same header: left as they are, so nothing that includes them rebuilds.
  touch -d '2000-01-01' "$scratch/p.cpp" "$scratch/j.cpp"
  "$writer" "$scratch/good.h" labs/07_toy/good.h "$scratch/p.cpp" "$scratch/j.cpp"
  if [ "$(find "$scratch" -name '?.cpp' -newermt '2001-01-01' | wc -l)" -eq 0 ]; then
    echo "ok: written again from the same header, the lists are left untouched"
  else
    echo "FAIL: the lists were rewritten though the header did not change"; failures=$((failures + 1))
  fi
else
  echo "FAIL: the writer refused a good header"; failures=$((failures + 1))
fi
exit $((failures > 0))
