#!/usr/bin/env bash
# A lab that does not compile fails by itself: in a copy of the workbook whose lab 04 starter has a
# syntax error, `grade 02` builds and reaches the grading (no GPU here: exit 77, and results.json),
# `grade 02 04` reports lab 04 as not compiling beside lab 02's steps (a failure, exit 1, GPU or
# none), and `grade 04 --json` writes a results.json that says why, with the compiler's first error;
# and a lab whose object carries other GPU code than the build names fails every step saying so
# ([gpu-code]). CPU only; the first of the tests that share a copy (workbook_copy.sh): it builds
# what the handout's build of the copy left to build.
#   test_broken_lab.sh SOURCE_DIR
set -u
source "$(dirname "$0")/workbook_copy.sh" "$1" solutions  # $copy: a student's copy (no solutions/), with its own results/
sed -i 's/^namespace sgemm_lab {$/namespace sgemm_lab { this is not C++/' "$copy/labs/04_sgemm/sgemm.cu"
grep -q "this is not C++" "$copy/labs/04_sgemm/sgemm.cu" || { echo "FAIL: could not break the copy"; exit 1; }
# Lab 02's file, edited, is compiled by the first grading below even in a copy whose build compiled
# it before (a shared copy: workbook_copy.sh).
echo "// this grading's own text" >>"$copy/labs/02_memory/memory.cu"

failures=0
status=0
(cd "$copy" && WORKBOOK_PRESET=cpu CUDA_VISIBLE_DEVICES= ./workbook grade 02 --json only-02.json) >"$copy/one.log" 2>&1 || status=$?
if [ "$status" -eq 77 ] && grep -q '02.5 at memcpy speed' "$copy/only-02.json" &&
   grep -q "02_memory: labs/02_memory/memory.cu built: its host code will run only in its planner" "$copy/one.log"; then
  echo "ok: grade 02 builds (saying so) and grades lab 02 while lab 04 does not compile"
else
  echo "FAIL: grade 02 exited $status:"; tail -n 15 "$copy/one.log"; failures=$((failures + 1))
fi
# Where compiling the student's file went, as nvcc timed its passes, in grade.log: said
# for the file this grading compiled, and not again by a grading that compiles it no more.
# Two compiles, side by side: the GPU half (cicc and ptxas) and the host half (cudafe++, cicc for
# PTX alone, the host compiler).
passes="nvcc's passes on labs/02_memory/memory.cu, compiled for this grading"
if grep -qE "^\[workbook\] $passes \(lab02_memory_starter_gpu\): preprocessing [0-9.]+ s, cicc [0-9.]+ s for compute_[0-9a]+, ptxas [0-9.]+ s for sm_[0-9a]+.*, fatbinary [0-9.]+ s$" "$copy/results/grade.log" &&
   grep -qE "^\[workbook\] $passes \(lab02_memory_starter_host\): preprocessing [0-9.]+ s, cudafe\+\+ .*, cicc [0-9.]+ s for compute_[0-9a]+.*, host compiler [0-9.]+ s$" "$copy/results/grade.log" &&
   ! grep "$passes (lab02_memory_starter_host)" "$copy/results/grade.log" | grep -q ptxas; then
  echo "ok: grade.log says how long each of nvcc's passes took on the student's file, its GPU half and its host half"
else
  echo "FAIL: no line of nvcc's passes on memory.cu in grade.log:"; cat "$copy/results/grade.log"; failures=$((failures + 1))
fi
status=0
(cd "$copy" && WORKBOOK_PRESET=cpu CUDA_VISIBLE_DEVICES= ./workbook grade 02 04 --json both.json) >"$copy/two.log" 2>&1 || status=$?
# One row per step of the broken lab, as a graded lab has: its 11 steps, each saying why; and a lab
# that does not compile is a failure whether or not a GPU is here to grade the other.
if [ "$status" -eq 1 ] && grep -qE '^FAIL  04\.1 .*04_sgemm does not compile' "$copy/two.log" && [ "$(grep -oE '"name": "04_sgemm 04\.[0-9]+ [^"]*", "score": [0-9.]+, "max_score": [0-9.]+, "status": "failed", "visibility": "visible", "output": "04_sgemm does not compile' "$copy/both.json" | wc -l)" -eq 11 ] &&
   grep -q '02.1 several floats' "$copy/both.json" &&
   grep -q "04_sgemm did not compile" "$copy/two.log" && grep -q "sgemm.cu.*error" "$copy/two.log" &&
   [ "$(grep -c "this is not C++" "$copy/two.log")" -le "$(grep -c "this is not C++" "$copy/results/build.log")" ]; then
  echo "ok: grade 02 04 fails each of lab 04's steps as not compiling, shows why (each compiler line once), and keeps lab 02"
  if grep -qF "$passes" "$copy/results/grade.log"; then
    echo "FAIL: grade.log times nvcc's passes on memory.cu, which this grading did not compile"; failures=$((failures + 1))
  fi
else
  echo "FAIL: grade 02 04 exited $status:"; tail -n 15 "$copy/two.log"; failures=$((failures + 1))
fi
status=0
(cd "$copy" && WORKBOOK_PRESET=cpu CUDA_VISIBLE_DEVICES= ./workbook grade 04 --json only-04.json) >"$copy/three.log" 2>&1 || status=$?
if [ "$status" -eq 1 ] && grep -q '"output": "04_sgemm does not compile: labs/04_sgemm/sgemm.cu([0-9]*): error: .* (every error: results/build.log)' "$copy/only-04.json"; then
  echo "ok: grade 04 --json, when lab 04 alone is asked for and does not compile, still writes results.json saying why"
else
  echo "FAIL: grade 04 --json exited $status:"; cat "$copy/only-04.json"; tail -n 15 "$copy/three.log"; failures=$((failures + 1))
fi
# A lab whose object does not carry the build's GPU code is not graded: here lab 02's object holds
# the build's code (what WORKBOOK_CUDA_ARCHITECTURES names: sm_90 and its PTX in a copy that
# workbook_copy.sh makes, sm_80 and sm_90 by the cpu preset elsewhere) while the build is made to
# say another alone, as when a compile fell back to other code than the build names.
architectures=$(tr ';' ' ' <"$copy/build/cpu/labs/02_memory/gpu_code.architectures")
compiled_to=$( (for a in $architectures; do echo "compute_$a"; done; for a in $architectures; do echo "sm_$a"; done) | paste -sd, | sed 's/,/, /g')
other=80
[ "$architectures" != 80 ] || other=90
cp "$copy/build/cpu/labs/02_memory/gpu_code.architectures" "$copy/gpu_code.architectures.built"
echo "$other" >"$copy/build/cpu/labs/02_memory/gpu_code.architectures"
status=0
(cd "$copy" && WORKBOOK_PRESET=cpu CUDA_VISIBLE_DEVICES= ./workbook grade 02 --json other-code.json) >"$copy/four.log" 2>&1 || status=$?
if [ "$status" -eq 1 ] && grep -qF "[gpu-code] labs/02_memory/memory.cu was compiled to $compiled_to, not to compute_$other, sm_$other" "$copy/other-code.json" &&
   grep -q "02.6 the copy engine ... FAIL (not compiled to this build's GPU code)" "$copy/four.log"; then
  echo "ok: grade 02 fails every step of a lab whose object carries other GPU code than the build's, saying which"
else
  echo "FAIL: grade 02 with other GPU code exited $status:"; cat "$copy/other-code.json"; tail -n 15 "$copy/four.log"; failures=$((failures + 1))
fi
# The build's own record put back, for the tests that grade in this copy's build after this one.
cp "$copy/gpu_code.architectures.built" "$copy/build/cpu/labs/02_memory/gpu_code.architectures"
[ "$failures" -eq 0 ]
