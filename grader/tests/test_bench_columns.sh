#!/usr/bin/env bash
# The benchmark CSV's format has one definition, the columns a lab's grader registers; the plot
# (grader/labs/LAB/plot.py) reads columns by name. This checks that every column the plot reads is one the grader
# writes (CPU only: --bench-columns needs no GPU).
# usage: test_bench_columns.sh ROOT LAB GRADER_BINARY
set -euo pipefail
root=$1 lab=$2 grader=$3
columns=$("$grader" --bench-columns)
[ -n "$columns" ] || { echo "FAIL: $grader --bench-columns printed nothing"; exit 1; }
python3 "$root/grader/labs/$lab/plot.py" --check-columns "$columns"
