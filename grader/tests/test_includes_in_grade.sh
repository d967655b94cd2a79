#!/usr/bin/env bash
# `grade` checks a file's #include lines before the compiler reads it, in every copy (this one is a
# student's, without solutions/): in a copy whose lab 04 includes
# cuBLAS's header, every step of lab 04 fails naming the vendor library, uncompiled; and a
# submission whose file includes /etc/passwd is refused. Host code
# that reaches a vendor library without its header runs only in its planner, where it computes
# nothing the judge sees (04_sgemm.judge: mutant_calls_cublas, mutant_dlopens_cublas). CPU only (the
# GPU is hidden: the results file still carries each step's reason).
#   test_includes_in_grade.sh SOURCE_DIR
set -u
source "$(dirname "$0")/workbook_copy.sh" "$1" solutions  # $copy: a student's copy (no solutions/), with its own results/
# A student who reaches for cuBLAS: the include check says so before anything is compiled.
sed -i 's|^#include "sgemm.h"$|#include "sgemm.h"\n#include <cublas_v2.h>|' "$copy/labs/04_sgemm/sgemm.cu"
grep -q "cublas_v2.h" "$copy/labs/04_sgemm/sgemm.cu" || { echo "FAIL: could not add the #include"; exit 1; }
status=0
(cd "$copy" && WORKBOOK_PRESET=cpu CUDA_VISIBLE_DEVICES= ./workbook grade 04.1 04.2 --json r.json) >"$copy/log" 2>&1 || status=$?
vendor=$(grep -o '"name": "04_sgemm 04.1[^}]*' "$copy/r.json" 2>/dev/null)
other=$(grep -o '"name": "04_sgemm 04.2[^}]*' "$copy/r.json" 2>/dev/null)
failures=0
# Refused before anything ran: the verdicts are known without a GPU (exit 1, not 77).
if [ "$status" -eq 1 ] && [[ "$vendor" == *"a vendor library's header"* ]] && [[ "$other" == *"a vendor library's header"* ]] &&
   ! grep -q "sgemm.cu.o" "$copy/results/build.log" 2>/dev/null; then
  echo "ok: 04.1 and 04.2 fail for the file's cuBLAS header, uncompiled"
else
  echo "FAIL: grade exited $status; 04.1: $vendor; 04.2: $other"; tail -n 15 "$copy/log"; failures=$((failures + 1))
fi

mkdir -p "$copy/alice/labs/02_memory"
printf '#include "memory.h"\n#include "/etc/passwd"\n' >"$copy/alice/labs/02_memory/memory.cu"
status=0
(cd "$copy" && WORKBOOK_PRESET=cpu CUDA_VISIBLE_DEVICES= ./workbook grade --submission alice --json a.json) >"$copy/log" 2>&1 || status=$?
if [ "$status" -eq 1 ] && grep -q '\[host-code\] memory.cu:2: #include \\"/etc/passwd\\": an absolute path' "$copy/a.json" &&
   ! grep -q 'root:' "$copy/log"; then
  echo "ok: a submission that includes /etc/passwd is refused before the compiler reads it"
else
  echo "FAIL: grade --submission exited $status"; cat "$copy/a.json"; tail -n 15 "$copy/log"; failures=$((failures + 1))
fi
[ "$failures" -eq 0 ]
