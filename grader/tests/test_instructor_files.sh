#!/usr/bin/env bash
# Nothing an instructor has is lost or handed out, and nothing is installed or left broken unasked
# (CPU only; about two minutes on two cores, most of it CMake configuring a scratch copy):
#   - a handout leaves out every file git does not track (named on the console), refuses a copy
#     that holds a reference solution even edited (a comment added), and leaves nothing behind;
#   - grade-class keeps an earlier class's results in a dated folder, never deletes them; and when
#     sbatch refuses a class, the earlier class is back where it was;
#   - ./workbook test installs Slurm only where WORKBOOK_REQUIRE_SLURM=1 asks for it;
#   - a configuration that failed (a wrong WORKBOOK_CUDA_ARCHITECTURES) leaves no build folder that
#     fails every later command, and a malformed one is refused before anything is touched.
#   test_instructor_files.sh ROOT RUNNER   RUNNER: the checkout's built workbook_runner
set -u
root=$1 runner=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
chmod 755 "$scratch"
export WORKBOOK_RESULTS="$scratch/results"
preset=$(basename "$(dirname "$(dirname "$runner")")")  # the runner's build folder is build/<preset>
failures=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# A checkout of its own: ROOT's files (those git tracks, where ROOT is a clone; in a student's copy,
# which has no history, all but its build and results), and for an instructor's, committed.
checkout="$scratch/instructor"
mkdir -p "$checkout"
if [ -d "$root/.git" ]; then
  (cd "$root" && git ls-files -z | xargs -0 cp --parents -t "$checkout" 2>/dev/null)
else
  (cd "$root" && tar --exclude=./build --exclude=./results --exclude=./.scratch -cf - .) | (cd "$checkout" && tar -xf -)
fi
commit() { git -C "$checkout" add -A && git -C "$checkout" -c user.name=test -c user.email=test@example.invalid commit -q -m "$1"; }

# 1. The handout: untracked files named and left out; a solution with a comment added, committed
# into labs/ by mistake, refused; the refused copy removed, a folder that was there left empty.
if [ -f "$root/solutions/02_memory/memory.cu" ]; then
  { git -C "$checkout" init -q && commit "the course"; } || { echo "FAIL: no git checkout to make a handout from"; exit 1; }
  { echo "// my answer, to check the grader"; cat "$root/solutions/02_memory/memory.cu"; } >"$checkout/labs/02_memory/memory.cu"
  commit "a solution where the starter was"
  echo "student,total" >"$checkout/grades-2026-private.csv"
  mkdir -p "$checkout/class-2026/alice" "$scratch/given-folder"
  echo "// alice's work" >"$checkout/class-2026/alice/memory.cu"
  for destination in "$scratch/new-folder" "$scratch/given-folder"; do
    status=0
    "$runner" handout "--root=$checkout" "--preset=$preset" "--caller=$scratch" "--results=$scratch/results" -- "$destination" \
      >"$scratch/handout.log" 2>&1 || status=$?
    if [ "$status" -eq 1 ] &&
       grep -q "labs/02_memory/memory.cu is a copy of the instructor's solutions/02_memory/memory.cu (100% of its lines)" "$scratch/handout.log" &&
       grep -q "leaves out 2 files git does not track here (yours, not the course's): class-2026/alice/memory.cu, grades-2026-private.csv" "$scratch/handout.log"; then
      ok "handout names the untracked files it leaves out, and refuses a solution with a comment added ($(basename "$destination"))"
    else
      fail "handout into $(basename "$destination") exited $status:"; cat "$scratch/handout.log"
    fi
  done
  [ ! -e "$scratch/new-folder" ] && ok "the refused copy was removed" || fail "the refused copy is still in new-folder"
  [ -d "$scratch/given-folder" ] && [ -z "$(ls -A "$scratch/given-folder")" ] && ok "the folder it was given is left empty" ||
    fail "the refused copy left files in the folder it was given: $(ls -A "$scratch/given-folder" | head -n 3)"
fi

# 2. grade-class keeps the class graded before (a marker in every file an instructor would miss).
class_folder="$WORKBOOK_RESULTS/class"
mkdir -p "$class_folder/alice" "$scratch/class/bob/labs/01_latency"
echo '{"score": 42}' >"$class_folder/alice/results.json"
echo "the earlier class" >"$class_folder/summary.txt"
cp "$root/labs/01_latency/latency.cu" "$scratch/class/bob/labs/01_latency/"
status=0
CUDA_VISIBLE_DEVICES= "$root/workbook" grade-class "$scratch/class" 01 >"$scratch/class.log" 2>&1 || status=$?
kept=$(ls -d "$WORKBOOK_RESULTS"/class-20*/ 2>/dev/null | head -n 1)
if [ "$status" -eq 77 ] && [ -n "$kept" ] && grep -q 42 "$kept/alice/results.json" && grep -q "the earlier class" "$kept/summary.txt" &&
   grep -q "the previous class's results are kept in .*class-20" "$scratch/class.log" && grep -qE '^bob ' "$class_folder/summary.txt"; then
  ok "grade-class keeps the earlier class in $(basename "$kept") and grades the new one in class/"
else
  fail "grade-class exited $status, the earlier class kept in '${kept}':"; tail -n 8 "$scratch/class.log"
fi
# 3. --slurm, refused by sbatch: the class graded before is where it was, and nothing else moved.
mkdir -p "$scratch/slurm-bin"
printf '#!/bin/sh\necho "sbatch: error: Invalid generic resource (gres) specification" >&2\nexit 1\n' >"$scratch/slurm-bin/sbatch"
printf '#!/bin/sh\nexit 0\n' >"$scratch/slurm-bin/squeue"
chmod +x "$scratch/slurm-bin/sbatch" "$scratch/slurm-bin/squeue"
before=$(cd "$WORKBOOK_RESULTS" && find . -path ./class-20\* -prune -o -path './class/*' -type f -print | sort | xargs md5sum)
status=0
PATH="$scratch/slurm-bin:$PATH" "$root/workbook" grade-class "$scratch/class" 01 --slurm >"$scratch/slurm.log" 2>&1 || status=$?
after=$(cd "$WORKBOOK_RESULTS" && find . -path ./class-20\* -prune -o -path './class/*' -type f -print | sort | xargs md5sum)
if [ "$status" -eq 1 ] && grep -q "sbatch refused the class's job array" "$scratch/slurm.log" && [ "$before" = "$after" ] &&
   [ "$(ls -d "$WORKBOOK_RESULTS"/class-20* | wc -l)" -eq 1 ]; then
  ok "grade-class --slurm refused by sbatch leaves the class graded before as it was"
else
  fail "grade-class --slurm exited $status; the class before and after:"; diff <(echo "$before") <(echo "$after"); tail -n 5 "$scratch/slurm.log"
fi

# 4. ./workbook test installs Slurm only when asked (where slurmctld and munged are not on PATH).
# PATH without the folders that hold Slurm's daemons, as on a machine that has none.
without_slurm=$(tr ':' '\n' <<<"$PATH" | while IFS= read -r folder; do
  [ -e "$folder/slurmctld" ] || [ -e "$folder/munged" ] || printf '%s:' "$folder"; done)
asked() {  # the packages ensure_tools would install for `./workbook test`, with WORKBOOK_REQUIRE_SLURM=$1
  : >"$scratch/installed"
  (
    export WORKBOOK_SOURCED=1 WORKBOOK_REQUIRE_SLURM=$1
    # shellcheck source=/dev/null
    source "$root/workbook"
    install_packages() { echo "$*" >>"$scratch/installed"; }
    PATH=${without_slurm%:}
    ensure_tools test  # may stop after "installing" (nothing is), at a later check: what it asked is kept
  ) >/dev/null 2>&1
  cat "$scratch/installed"
}
if ! asked 0 | grep -qE 'slurm|munge' && asked 1 | grep -q 'slurm-wlm munge'; then
  ok "./workbook test installs slurm-wlm and munge only where WORKBOOK_REQUIRE_SLURM=1"
else
  fail "./workbook test would install: '$(asked 0)' unasked, '$(asked 1)' asked"
fi

# 5. A configuration that fails is not kept, and a malformed architecture is refused, in the
# workbook's words, by the build's one check of them (cmake/CheckArchitectures.cmake), before
# CMake's own, which names forms the workbook refuses: "all" too, which CMake would take.
for malformed in sm_90 all; do
  status=0
  WORKBOOK_CUDA_ARCHITECTURES=$malformed WORKBOOK_PRESET=cpu "$checkout/workbook" setup >"$scratch/malformed.log" 2>&1 || status=$?
  # CMake folds a long message over lines: read as one.
  [ "$status" -eq 1 ] && tr -s ' \n' ' ' <"$scratch/malformed.log" | grep -q "'$malformed' is not a CUDA architecture the workbook builds for" &&
      [ ! -e "$checkout/build/cpu/CMakeCache.txt" ] &&
    ok "WORKBOOK_CUDA_ARCHITECTURES=$malformed is refused when configuring, in the workbook's words, and no configuration is kept" ||
    { fail "WORKBOOK_CUDA_ARCHITECTURES=$malformed exited $status"; cat "$scratch/malformed.log"; }
done
configure_with() {  # the front door's own configure step, in the scratch checkout, with WORKBOOK_CUDA_ARCHITECTURES=$1
  (
    export WORKBOOK_SOURCED=1 WORKBOOK_PRESET=cpu
    [ -z "$1" ] || export WORKBOOK_CUDA_ARCHITECTURES=$1
    # shellcheck source=/dev/null
    source "$checkout/workbook"
    choose_preset
    configure
  )
}
configure_with 90 >"$scratch/configure.log" 2>&1 || fail "the scratch checkout did not configure: $(tail -n 5 "$scratch/configure.log")"
status=0
configure_with 12 >"$scratch/wrong.log" 2>&1 || status=$?  # well formed, and below what the labs need
if [ "$status" -eq 1 ] && grep -q "CMake Error" "$scratch/wrong.log" && grep -q "WORKBOOK_CUDA_ARCHITECTURES=12 may name GPU code" "$scratch/wrong.log"; then
  ok "a wrong WORKBOOK_CUDA_ARCHITECTURES fails configuring, with CMake's error on the console"
else
  fail "configuring for sm_12 exited $status:"; tail -n 8 "$scratch/wrong.log"
fi
if configure_with "" >"$scratch/again.log" 2>&1 && ninja -C "$checkout/build/cpu" -n workbook_runner >"$scratch/ninja.log" 2>&1; then
  ok "the next command configures afresh and its build can run"
else
  fail "after a failed configuration, the build folder still fails:"; tail -n 5 "$scratch/again.log" "$scratch/ninja.log"
fi
[ "$failures" -eq 0 ]
