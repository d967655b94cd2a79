#!/usr/bin/env bash
# Every entry of a class folder is a student with a row, and nothing an instructor keeps is
# overwritten, through ./workbook grade-class, on a machine without a GPU:
#   - an entry the workbook cannot read (a .rar, a lone .cu) is a student with a reason, and an
#     upper-case .ZIP is read as a zip;
#   - alice/ and alice.zip are two students, alice and alice-2; summary.txt.zip is not the class's
#     summary.txt;
#   - each student's grade.log (the data keys a replay needs) is kept in the class's folder, and a
#     class moved aside by the next keeps them;
#   - a folder over the size limit is refused before anything of it is copied, and what the student
#     reads names no folder of the grading machine;
#   - a copy of the instructor's solution is not graded: the instructor reads which file it copies,
#     the student a neutral reason (an instructor's checkout only).
#   test_class_entries.sh ROOT
set -u
root=$1
failures=0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
chmod 755 "$scratch"
export WORKBOOK_RESULTS="$scratch/results" WORKBOOK_UNPACK_MAX_MIB=2
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
class="$scratch/class"
mkdir -p "$class/alice/labs/02_memory" "$class/big/labs/02_memory"
cp "$root/labs/02_memory/memory.cu" "$class/alice/labs/02_memory/"
# Archives that hold no lab file: read, each its student's, and nothing of theirs to build.
python3 - "$class" <<'PY'
import sys, zipfile
for name in ("alice.zip", "DORA.ZIP", "summary.txt.zip"):
    with zipfile.ZipFile(f"{sys.argv[1]}/{name}", "w") as archive:
        archive.writestr("README.md", "my notes\n")
PY
echo "not an archive the workbook reads" >"$class/bob.rar"
echo "__global__ void k() {}" >"$class/carl.cu"
head -c $((3 * 1024 * 1024)) /dev/zero >"$class/big/labs/02_memory/memory.cu"
instructor=false
if [ -f "$root/solutions/02_memory/memory.cu" ]; then
  instructor=true
  mkdir -p "$class/eve/labs/02_memory"
  { echo "// my own work"; sed 's/^  //' "$root/solutions/02_memory/memory.cu"; } >"$class/eve/labs/02_memory/memory.cu"
fi
env CUDA_VISIBLE_DEVICES= "$root/workbook" grade-class "$class" 02 --seed 7 >"$scratch/console.txt" 2>&1
status=$?
cat "$scratch/console.txt"
[ "$status" -eq 77 ] && ok "grade-class without a GPU exits 77" || fail "grade-class exited $status"
results="$WORKBOOK_RESULTS/class"
students="alice alice-2 big bob.rar carl.cu DORA summary.txt-2"
$instructor && students="$students eve"
for who in $students; do
  rows=$(grep -c "^$who,02_memory," "$results/class.csv" 2>/dev/null)
  if grep -qE "^$who +0 of 6 +steps +score 0\.00 +[^ ]" "$results/summary.txt" && grep -q "^$who," "$results/gradebook.csv" &&
     [ "$rows" -eq 6 ] && [ -s "$results/$who/results.json" ]; then
    ok "$who: a line with a reason, six rows, a gradebook row and a results.json"
  else
    fail "$who: summary line '$(grep -E "^$who " "$results/summary.txt")', $rows rows in class.csv"
  fi
done
[ "$(tail -n +2 "$results/gradebook.csv" | wc -l)" -eq "$(wc -w <<<"$students")" ] && ok "one gradebook row per entry" ||
  fail "the gradebook has $(tail -n +2 "$results/gradebook.csv" | wc -l) rows for $(wc -w <<<"$students") entries"
grep -qE "^bob\.rar .*'bob\.rar' is not a submission the workbook reads" "$results/summary.txt" && ok "a .rar says why" || fail "no reason for the .rar"
grep -qE "^DORA .*holds no labs/02_memory/memory\.cu|^DORA .*not in the submission" "$results/summary.txt" && ok "DORA.ZIP was read as a zip" ||
  fail "DORA.ZIP: $(grep -E '^DORA ' "$results/summary.txt")"
grep -q "'alice.zip' is the student alice-2" "$scratch/console.txt" && ok "alice.zip is alice-2, said on the console" || fail "alice.zip's name not said"
grep -q "^seed 7 for every submission" "$results/summary.txt" && ok "summary.txt is the class's own" || fail "summary.txt is not the class's"
# The logs a replay needs are the class's.
[ -f "$results/alice/submission/grade.log" ] && ok "alice's grade.log is in the class's folder" || fail "no grade.log in class/alice/submission"
cp "$results/alice/submission/grade.log" "$scratch/alice-grade.log"
mkdir -p "$scratch/next/alice/labs/02_memory"
echo "// TODO" >"$scratch/next/alice/labs/02_memory/memory.cu"
env CUDA_VISIBLE_DEVICES= "$root/workbook" grade-class "$scratch/next" 02 --seed 8 >"$scratch/next.txt" 2>&1
kept=$(ls -d "$WORKBOOK_RESULTS"/class-* 2>/dev/null | head -n 1)
if [ -n "$kept" ] && cmp -s "$kept/alice/submission/grade.log" "$scratch/alice-grade.log"; then
  ok "the class moved aside keeps alice's grade.log as it was"
else
  fail "the previous class lost alice's grade.log (kept in '${kept:-nowhere}')"
fi
# Too large: refused, nothing copied, and no folder of the grading machine named to the student.
grep -qE "^big .*is refused: it holds more than 2 MiB" "$kept/summary.txt" && ok "a 3 MiB folder is refused at 2 MiB" ||
  fail "big: $(grep -E '^big ' "$kept/summary.txt")"
[ ! -e "$kept/big/submission/taken" ] && ok "nothing of the large folder was taken" || fail "the large folder was copied"
if grep -q "$scratch" "$kept"/*/results.json; then fail "a student's results.json names a folder of the grading machine: $(grep -l "$scratch" "$kept"/*/results.json)"
else ok "no student's results.json names a folder of the grading machine"; fi
if $instructor; then
  grep -qE "^eve .*a copy of the instructor's solutions/02_memory/memory\.cu" "$kept/summary.txt" &&
    ok "the instructor reads that eve's file copies solutions/02_memory/memory.cu" || fail "eve: $(grep -E '^eve ' "$kept/summary.txt")"
  if grep -q "solutions/" "$kept/eve/results.json" || ! grep -q "cannot be graded as your work" "$kept/eve/results.json"; then
    fail "eve's results.json does not give the neutral reason alone"
  else ok "eve reads a neutral reason"; fi
fi
echo "$failures failures"
[ "$failures" -eq 0 ]
