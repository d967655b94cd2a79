#!/usr/bin/env bash
# A proof whose verdict alone proves nothing without the mutant's own word that its trick was tried
# (grader/tests/proofs_table.h): the grader's or judge's verdict as the test asks for it
# (--expect-honest, --expect-reason=...), and WORD among what the run printed. A residue mutant's
# word says its planner was told where the grader's scratch lay (without it, "graded on its own
# kernels" would prove nothing: it never looked); a closed mutant proved linked says its trick found
# what it looked for (without it, an honest verdict would prove nothing: it never cheated).
#   mutant_word.sh WORD COMMAND ARGS...
set -u
word=$1
shift
output=$("$@" 2>&1)
status=$?
echo "$output"
[ "$status" -eq 0 ] || exit "$status"  # 77: no GPU, the test is skipped
if [[ "$output" != *"$word"* ]]; then
  echo "FAIL: the mutant never said \"$word\": its trick was not tried, and nothing was proved"
  exit 1
fi
echo "ok: the mutant said \"$word\""
