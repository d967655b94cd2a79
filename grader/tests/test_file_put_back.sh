#!/usr/bin/env bash
# A student's file put back from a copy (cp -p, tar, unzip, rsync -a) keeps its old time, older than
# the object compiled from the text it replaced; the build must compile it again all the same, or
# the grading grades the other text. In a copy of the workbook, `grade 01` (no GPU here: it builds,
# then exits 77) must compile labs/01_latency/latency.cu after an edit, again after the file is put
# back as it was with a time long past, and not when nothing changed. grade.log says whether a
# grading compiled the file (nvcc's passes line). CPU only; about two minutes on two cores.
#   test_file_put_back.sh SOURCE_DIR
set -u
source "$(dirname "$0")/workbook_copy.sh" "$1" solutions  # $copy: a student's copy (no solutions/), with its own results/
file=labs/01_latency/latency.cu
compiled_line="nvcc's passes on $file, compiled for this grading"
failures=0

grade() {  # grade NAME: ./workbook grade 01 in the copy, its console in NAME.log
  local status=0
  (cd "$copy" && WORKBOOK_PRESET=cpu CUDA_VISIBLE_DEVICES= ./workbook grade 01) >"$copy/$1.log" 2>&1 || status=$?
  if [ "$status" -ne 77 ]; then
    echo "FAIL: grade 01 ($1) exited $status, not 77 (built, no GPU):"; tail -n 15 "$copy/$1.log"; failures=$((failures + 1))
  fi
}
compiled() { grep -qF "$compiled_line" "$copy/results/grade.log"; }

cp -p "$copy/$file" "$copy/as_handed_out.cu"
echo "// an edit" >>"$copy/$file"
grade edited
if compiled; then echo "ok: an edited file is compiled"; else echo "FAIL: the edited file was not compiled"; failures=$((failures + 1)); fi

cp -p "$copy/as_handed_out.cu" "$copy/$file"
touch -d '2001-01-01 00:00' "$copy/$file"
grade put_back
if compiled; then
  echo "ok: the file put back as it was, with a time older than its object, is compiled again"
else
  echo "FAIL: the file put back with an old time was not compiled: the grading would grade the edited text"
  failures=$((failures + 1))
fi

grade unchanged
if compiled; then
  echo "FAIL: a grading with nothing changed compiled the file again"; failures=$((failures + 1))
else
  echo "ok: nothing changed, nothing compiled"
fi
exit $((failures > 0))
