#!/usr/bin/env bash
# A student's working loop, timed: edit a lab's file, `./workbook grade STEP`, read the
# verdict. For each step given (default: the last of each lab), with the reference solution as the
# student's file in labs/ (the largest file a student writes), it times ROUNDS rounds of
#   after editing:   a comment appended to the file, then `./workbook grade STEP --seed 7`
#   nothing changed: `./workbook grade STEP --seed 7` again
# and prints a Markdown table: the wall time of each, and how much of it grade.log's time line says
# was building. Below the table, where the edited file's build went: ninja's own record
# (build/PRESET/.ninja_log) of the last edit's build, its longest steps first.
# A benchmark, not a test: it needs a GPU and the reference solutions. It puts labs/'s files back as
# they were. --from DIR takes the solutions from DIR (default: this checkout's solutions/), so that
# it runs in a student's copy (./workbook handout), whose build has no instructor's targets.
#   scripts/edit_to_verdict.sh [--rounds N] [--from DIR] [STEP...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
rounds=2
solutions=solutions
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --from) solutions=$2; shift 2 ;;
    *) break ;;
  esac
done
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(01.4 02.6 03.4 04.11 05.5 06.10)
[ -d "$solutions" ] || { echo "edit_to_verdict.sh: needs $solutions/ (the reference solutions are the files it edits; --from DIR names another)" >&2; exit 2; }
nvidia-smi -L >/dev/null 2>&1 || { echo "edit_to_verdict.sh: needs a GPU (it times ./workbook grade)" >&2; exit 2; }

# It replaces labs/'s files for the run: never where they hold work of someone's that git does not
# have (a student's edits), which a killed run would leave in a temporary folder only.
for step in "${steps[@]}"; do
  lab=$(ls -d "labs/${step%%.*}_"* | head -1)
  if ! git diff --quiet HEAD -- "$lab" 2>/dev/null || [ -n "$(git status --porcelain -- "$lab" 2>/dev/null)" ]; then
    echo "edit_to_verdict.sh: $lab has changes git does not hold: commit or stash them first (it replaces labs/'s files while it runs)" >&2
    exit 2
  fi
done
saved=$(mktemp -d)
# Put back as they were, their old times too: the build compiles a student's file by its text, not
# its time (cmake/StudentFile.cmake, _compile_students_file), so the solution's build is not graded after.
restore() { cp -a "$saved/labs/." labs/ 2>/dev/null || true; rm -rf "$saved"; }
trap restore EXIT
mkdir -p "$saved/labs"

lab_of() { ls -d "labs/${1%%.*}_"* | head -1; }  # labs/NN_topic for step NN.k
for step in "${steps[@]}"; do
  lab=$(lab_of "$step")
  name=$(basename "$lab")
  file=$(ls "$solutions/$name"/*.cu | head -1)
  target="$lab/$(basename "$file")"
  if [ ! -e "$saved/$target" ]; then
    mkdir -p "$saved/$lab" && cp -a "$target" "$saved/$target"
    python3 grader/tests/one_file_solution.py "$file" "$target"
  fi
done

build_dir=${WORKBOOK_BUILD_DIR:-build/gpu}  # where ./workbook builds labs/ (the gpu preset's folder)
grade() {  # grade STEP: prints "WALL BUILDING VERDICT"
  local began ended log
  began=$(date +%s.%N)
  ./workbook grade "$1" --seed 7 >"$saved/console.txt" 2>&1 || true
  ended=$(date +%s.%N)
  log=${WORKBOOK_RESULTS:-results}/grade.log  # where ./workbook writes it
  local building verdict
  building=$(grep -o 'this grading: [0-9.]* s, of which building [0-9.]* s' "$log" | tail -1 | awk '{print $8}')
  verdict=$(grep -E "^(PASS|FAIL) +$1 " "$saved/console.txt" | head -1 | awk '{print $1}')
  echo "$(awk -v a="$began" -v b="$ended" 'BEGIN{printf "%.1f", b-a}') ${building:-?} ${verdict:-none}"
}

echo "# edit_to_verdict.sh on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nproc) cores, $(date -u +%F)"
# Each step graded once first, so that everything but the edited file is built: on a fresh clone,
# the first `./workbook grade` a student runs.
first=$(date +%s.%N)
for step in "${steps[@]}"; do grade "$step" >/dev/null; done
echo "first gradings of ${steps[*]}, build included: $(awk -v a="$first" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s"
echo
echo "| step | after editing: s (of which building) | nothing changed: s (of which building) | verdict |"
echo "| --- | --- | --- | --- |"
breakdowns=""
for step in "${steps[@]}"; do
  lab=$(lab_of "$step"); name=$(basename "$lab")
  target="$lab/$(basename "$(ls "$solutions/$name"/*.cu | head -1)")"
  edited="" unchanged="" verdict=""
  for ((r = 1; r <= rounds; ++r)); do
    before=$(wc -l <"$build_dir/.ninja_log")
    echo "// edit_to_verdict.sh: edit $r $(date +%s%N)" >>"$target"
    read -r wall building verdict < <(grade "$step")
    edited+="${edited:+, }$wall ($building)"
    if [ "$r" -eq "$rounds" ]; then
      # ninja's record of this build: start and end (ms) of each output; its longest first.
      breakdowns+=$'\n'"$step, after editing $(basename "$target"): $(tail -n +"$((before + 1))" "$build_dir/.ninja_log" |
        awk -F'\t' '$1 ~ /^[0-9]+$/ {n = split($4, p, "/"); if (!seen[$1 "/" $2 "/" p[n]]++) printf "%.1f s %s\n", ($2 - $1) / 1000, $4}' | sort -rn | head -4 |
        sed -e 's|^\(.*\) s .*/\([^/]*\)\.dir/.*/\([^/]*\)$|\1 s \3 of \2|' -e 's|^\(.*\) s .*/\([^/]*\)$|\1 s \2|' |
        paste -sd ';' - | sed 's/;/; /g')"
    fi
    read -r wall building verdict < <(grade "$step")
    unchanged+="${unchanged:+, }$wall ($building)"
  done
  echo "| $step | $edited | $unchanged | $verdict |"
done
echo
echo "Where each edited file's last build went (ninja's record, longest first):$breakdowns"
