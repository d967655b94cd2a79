#!/usr/bin/env bash
# ./workbook handout writes a student's copy that holds no answer and nothing else of the
# instructor's: no file of the instructor tree (solutions/: the reference solutions, witnesses,
# mutants and NOTES), by path or by content, no history, none of the files the checkout holds
# untracked (a grades file, a past class's submissions), and a build whose only graders are the
# starters'. The handout checks itself (it builds the copy from scratch and runs the copy's own
# test suite, as a student would: ./workbook test; with a GPU it grades it too: every step must
# fail with a TODO); this test checks the copy again from outside, by other means.
#   test_handout.sh ROOT RUNNER   RUNNER: the checkout's built workbook_runner
# The handout is made from an instructor's checkout of its own: the course's files as ROOT tracks
# them, committed, and beside them the untracked files an instructor keeps. Without a GPU the copy
# is built for one GPU architecture (sm_90), which is all a build without a GPU proves anything with.
# With WORKBOOK_TEST_COPY set (CTest sets it), the copy is written there with --keep-build and stays,
# built: the tests that grade in a student's copy begin from it (workbook_copy.sh), and CTest removes
# it after them. What this test checks of the copy is what is handed out: all of it but build/.
set -u
root=$1 runner=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
chmod 755 "$scratch"
checkout="$scratch/instructor" copy="${WORKBOOK_TEST_COPY:-$scratch/course}"
rm -rf "$copy"  # a handout is written into a new folder (one an earlier run left is not)
failures=0
check() {  # check WHAT COMMAND...: COMMAND succeeds
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}

mkdir -p "$checkout"
(cd "$root" && git ls-files -z | xargs -0 cp --parents -t "$checkout" 2>/dev/null)
git -C "$checkout" init -q && git -C "$checkout" add -A &&
  git -C "$checkout" -c user.name=test -c user.email=test@example.invalid commit -q -m "the course" || { echo "FAIL: no checkout"; exit 1; }
# What an instructor's checkout holds beside the course: grades, and a past class's files.
echo "student,total" >"$checkout/grades-2026-private.csv"
mkdir -p "$checkout/class-2026/alice/labs/02_memory"
echo "// alice's work" >"$checkout/class-2026/alice/labs/02_memory/memory.cu"

status=0
environment=(WORKBOOK_RESULTS="$scratch/results")
nvidia-smi -L 2>/dev/null | grep -q '^GPU' || environment+=(WORKBOOK_CUDA_ARCHITECTURES=90)
preset=$(basename "$(dirname "$(dirname "$runner")")")  # the runner's build folder is build/<preset>
keep=()
[ -z "${WORKBOOK_TEST_COPY:-}" ] || keep=(--keep-build)
env "${environment[@]}" "$runner" handout "--root=$checkout" "--preset=$preset" "--caller=$scratch" \
  "--results=$scratch/results" -- "$copy" "${keep[@]}" >"$scratch/handout.log" 2>&1 || status=$?
cat "$scratch/handout.log"
[ "$status" -eq 0 ] || { echo "FAIL: ./workbook handout exited $status"; tail -n 60 "$scratch/results/handout.log"; exit 1; }

check "the copy has no solutions/" test ! -e "$copy/solutions"
check "the copy has no history (.git)" test ! -e "$copy/.git"
if [ ${#keep[@]} -eq 0 ]; then
  check "the copy has no build or results of the checkout's" test ! -e "$copy/build" -a ! -e "$copy/results"
else
  # Its check's build folders alone: the preset's, and the submissions' its tests graded in.
  others=$(ls "$copy/build" | grep -vxE "$preset|submissions-$preset(-slot[0-9]+)?" | paste -sd' ')
  check "the copy's build is its check's alone, kept (--keep-build), and it has no results${others:+ (also: $others)}" \
    test -d "$copy/build/$preset" -a -z "$others" -a ! -e "$copy/results"
fi
handed_out() { (cd "$copy" && find . -path ./build -prune -o "$@"); }  # find over the copy less build/
check "the copy has none of the instructor's untracked files" test ! -e "$copy/grades-2026-private.csv" -a ! -e "$copy/class-2026"
check "the handout named the untracked files it left out" grep -q "leaves out 2 files git does not track here.*grades-2026-private.csv" "$scratch/handout.log"
check "the copy's own test suite passed in the handout's check" grep -q "handout: the copy's own test suite passes" "$scratch/handout.log"
named=$(handed_out \( -name 'witness.*' -o -name mutants -o -name proofs -o -name NOTES.md -o -name experiments \) -print)
check "the copy has no witness, mutant, proof, NOTES or experiment by name${named:+ (found: $named)}" test -z "$named"
# No file of the copy has the content of one of solutions/, wherever it sits.
(cd "$root/solutions" && find . -type f -size +0 -exec sha256sum {} +) | awk '{ print $1 }' | sort -u >"$scratch/instructor.sums"
handed_out -type f -exec sha256sum {} + | sort >"$scratch/copy.sums"
same=$(awk '{ print $1 }' "$scratch/copy.sums" | sort -u | comm -12 - "$scratch/instructor.sums")
check "no file of the copy is a copy of one of solutions/" test -z "$same"
# Every file of the course is there: the files git tracks, less solutions/ and the instructor's
# own beside it (the instructors' guide and its picture, the design, CI, a script that needs solutions/).
instructor_only='^(docs/instructors\.md|docs/site-instructors\.png|docs/design\.md|scripts/edit_to_verdict\.sh)$'
git -C "$checkout" ls-files | grep -vE '^(solutions|build|results)/' | grep -vE '^\.[^/]+/' | grep -vE "$instructor_only" |
  while IFS= read -r file; do [ -f "$checkout/$file" ] && [ ! -L "$checkout/$file" ] && echo "$file"; done | sort >"$scratch/wanted"
handed_out -type f -print | sed 's|^\./||' | grep -vE '^\.[^/]+/' | sort >"$scratch/got"
check "the copy holds every file of the course ($(wc -l <"$scratch/wanted") files)" diff "$scratch/wanted" "$scratch/got"
check "the copy has no instructors' guide, design, CI or script that needs solutions/" \
  test ! -e "$copy/docs/instructors.md" -a ! -e "$copy/docs/design.md" -a ! -e "$copy/.ci" -a ! -e "$copy/scripts/edit_to_verdict.sh"
# A student's README: what to do and the commands a student runs, none of the instructor's.
told=$(grep -oiE 'solutions/|--solution|mutant|calibrate|grade-class|slurm|witness|instructors\.md' "$copy/README.md" | sort -u | paste -sd' ')
check "the copy's README says nothing of the instructor's${told:+ (it names: $told)}" test -z "$told"
check "the copy's README tells a student what to do" grep -q '## How a lab works' "$copy/README.md"
check "no page of the copy names the instructor's folder" test -z "$(handed_out -type f -exec grep -l "$checkout/" {} + 2>/dev/null)"
# Configured as a student's checkout is, its build has no grader but the starters' and no test of
# a solution, witness or mutant.
# Configured in a folder of this test's, so that a kept build stays as its check made it.
configured="$scratch/configured"
if cmake --preset cpu -S "$copy" -B "$configured" >"$scratch/configure.log" 2>&1; then
  graders=$(ninja -C "$configured" -t targets all | grep -oE '^grade_[0-9]{2}_[a-z_]+:' | tr -d ':' | sort -u)
  beyond=$(printf '%s\n' "$graders" | grep -v '_starter$' || true)
  check "the copy's build has $(printf '%s\n' "$graders" | grep -c _starter) graders, all the starters'${beyond:+ (also: $beyond)}" \
    test -z "$beyond" -a "$(printf '%s\n' "$graders" | grep -c _starter)" -eq "$(ls -d "$root"/labs/[0-9][0-9]_* | wc -l)"
  proofs=$(ctest --test-dir "$configured" -N | grep -E 'mutant|solution|witness|bars (admit|reject)|repeat' || true)
  check "the copy's tests name no solution, witness or mutant${proofs:+ (found: $proofs)}" test -z "$proofs"
else
  echo "FAIL: the copy does not configure:"; tail -n 20 "$scratch/configure.log"; failures=$((failures + 1))
fi
[ "$failures" -eq 0 ]
