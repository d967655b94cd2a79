#!/usr/bin/env bash
# A residue mutant's test (residue_mutants in the proofs table, grader/tests/proofs_table.h): the judge's verdict as the test asks
# for it (--expect-honest, or --expect-reason=[ceiling]), and the mutant's own word that its planner
# was told where the grader's scratch lay when it planned a timed call. Without that word the mutant
# never looked, and "graded on its own kernels" would prove nothing.
#   residue_proof.sh JUDGE ARGS...
set -u
output=$("$@" 2>&1)
status=$?
echo "$output"
[ "$status" -eq 0 ] || exit "$status"  # 77: no GPU, the test is skipped
if [[ "$output" != *"the grader's scratch product at"* ]]; then
  echo "FAIL: the mutant's planner was never told where the grader's scratch lies (no \"the grader's scratch product at\" line): nothing was proved"
  exit 1
fi
echo "ok: the mutant was told where the grader's scratch lay"
