#!/usr/bin/env bash
# Bars that admit the taught form, measured with students' files: each lab's controls
# (solutions/NN_topic/proofs/controls/STUDENT/<topic>.cu), every step written from the lab's handout
# alone by someone who saw only what a student is handed, are graded as students' files through
# --submission with this GPU's bars, and must pass every step. A step whose bar is a vendor's speed
# (docs/instructors.md: 02.5, 02.6, 03.4, 04.11, 05.5, 06.6, 06.10) may stay close to the reference
# solution: a control may miss it, and its verdict is shown, not required (the handout says so with
# the number for each GPU: labs/04_sgemm/README.md, 04.11).
#   test_handout_controls.sh ROOT      exit 77 without a GPU
set -u
root=$1
nvidia-smi -L 2>/dev/null | grep -q '^GPU' || { echo "no CUDA GPU visible: nothing graded"; exit 77; }
vendor_steps=" 02.5 02.6 03.4 04.11 05.5 06.6 06.10 "
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
chmod 755 "$scratch"
export WORKBOOK_RESULTS="$scratch/results"
export WORKBOOK_GRADE_SOLUTION_COPIES=1  # the instructor's own files, graded on purpose
failures=0
students=$(cd "$root/solutions" && ls -d */proofs/controls/*/ 2>/dev/null | awk -F/ '{ print $4 }' | sort -u)
[ -n "$students" ] || { echo "FAIL: no controls under solutions/*/proofs/controls"; exit 1; }
for student in $students; do
  handed_in="$scratch/$student"
  for file in "$root"/solutions/*/proofs/controls/"$student"/*.cu; do
    lab=${file#"$root/solutions/"} lab=${lab%%/*}  # solutions/NN_topic/proofs/controls/STUDENT/<topic>.cu
    mkdir -p "$handed_in/labs/$lab" && cp "$file" "$handed_in/labs/$lab/"
  done
  output="$scratch/$student.out"
  (cd "$root" && ./workbook grade --submission "$handed_in" --seed 7) >"$output" 2>&1
  cat "$output"
  passed=$(grep -cE '^\[workbook\] [0-9]{2}_[a-z_]+ [0-9]{2}\.[0-9]+ .* \.\.\. pass$' "$output")
  missed=$(grep -oE '^\[workbook\] [0-9]{2}_[a-z_]+ [0-9]{2}\.[0-9]+ .* \.\.\. FAIL' "$output" | awk '{ print $3 }')
  required=""
  for step in $missed; do [[ "$vendor_steps" == *" $step "* ]] || required+=" $step"; done
  if [ "$passed" -gt 0 ] && [ -z "$required" ]; then
    vendor_missed=""
    [ -z "$missed" ] || vendor_missed="; missed, at a vendor's speed: $(echo $missed)"
    echo "ok: $student: $passed steps pass$vendor_missed"
  else
    echo "FAIL: $student: $passed steps pass; missed, each a step the handout must take a student through:$required"
    failures=$((failures + 1))
  fi
done
[ "$failures" -eq 0 ]
