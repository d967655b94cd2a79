#!/usr/bin/env bash
# The front door as a new student or instructor meets it: every mistake gets a clear message and
# one of the documented exit codes (0, 1, 2, 3, 77), from any folder. CPU only: nothing is graded.
#   test_front_door.sh ROOT GRADER RUNNER   ROOT: the workbook's folder; GRADER: any built grader
#                                          binary; RUNNER: workbook_runner
set -u
root=$1 grader=$2 runner=$3
failures=0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
chmod 755 "$scratch"  # a step confined to a user of its own (as root, with a GPU) reaches its folder
# The results of every grading here are this test's own: an instructor's results/ is never touched.
export WORKBOOK_RESULTS="$scratch/results"
# Some answers differ in a student's copy (no solutions/): each is tested as that copy gives it.
instructor_copy=false
[ -d "$root/solutions" ] && instructor_copy=true

# expect CODE TEXT COMMAND...: COMMAND exits with CODE and prints TEXT (stdout or stderr).
expect() {
  local code=$1 text=$2
  shift 2
  local output status=0
  output=$("$@" 2>&1) || status=$?
  if [ "$status" -ne "$code" ] || [[ "$output" != *"$text"* ]]; then
    echo "FAIL: $* exited $status (want $code) and printed:"
    printf '%s\n' "$output" | tail -n 5 | sed 's/^/    /'
    echo "    (wanted it to say: $text)"
    failures=$((failures + 1))
  else
    echo "ok: $* -> $status"
  fi
}

in_folder() { local folder=$1; shift; (cd "$folder" && "$@"); }

# Usage errors, from the root and from a lab's folder.
expect 2 "no lab '99'" "$root/workbook" grade 99
expect 2 "no lab '2' (did you mean 02?)" "$root/workbook" grade 2
expect 2 "no lab '4.1' (did you mean 04.1?)" "$root/workbook" grade 4.1
# No hint toward a lab that does not exist: there is no 07.
if "$root/workbook" grade 7 2>&1 | grep -q "did you mean"; then
  echo "FAIL: grade 7 suggests a lab that does not exist"; failures=$((failures + 1))
else
  echo "ok: grade 7 suggests no lab that does not exist"
fi
# list marks the experiments, whose bars are floors: 03.3, 06.5 and 06.8, and no other step.
marked=$("$root/workbook" list 2>/dev/null | grep "\[an experiment" | awk '{ print $1 }' | tr '\n' ' ')
if [ "$marked" = "03.3 06.5 06.8 " ]; then
  echo "ok: list marks the experiments 03.3, 06.5 and 06.8"
else
  echo "FAIL: list marks as experiments: '$marked' (want 03.3 06.5 06.8)"; failures=$((failures + 1))
fi
# --help or -h after a command is a request for the usage, not a mistake.
expect 0 "usage: ./workbook grade [LAB|STEP...]" "$root/workbook" grade --help
expect 0 "usage: ./workbook calibrate [LAB...]" "$root/workbook" calibrate -h
expect 0 "usage: ./workbook <command>" "$root/workbook" --help
if "$root/workbook" grade --help | grep -qE '^  (calibrate|handout|grade-class) '; then
  echo "FAIL: grade --help prints other commands' usage"; failures=$((failures + 1))
else
  echo "ok: grade --help prints grade's usage alone"
fi
expect 2 "no lab '99'" in_folder "$root/labs/04_sgemm" ../../workbook grade 99
expect 2 "from 0 to 18446744073709551615" "$root/workbook" grade --seed 99999999999999999999
expect 2 "not ''" "$root/workbook" grade --seed=
expect 2 "not '-1'" "$root/workbook" grade --seed=-1
expect 2 "--data-key takes a whole number from 0 to 18446744073709551615, not 'abc'" "$root/workbook" grade --data-key abc
expect 2 "cannot write" "$root/workbook" grade --json /nonexistent-folder/results.json
expect 2 "cannot write" "$root/workbook" grade --junit /nonexistent-folder/junit.xml
expect 2 "not a preset" env WORKBOOK_PRESET=bogus "$root/workbook" setup
expect 2 "unknown command" "$root/workbook" frobnicate
# The device trace is gone: its old switch says so, and what to do, rather than being ignored.
expect 2 "there is no device trace any more" "$root/workbook" grade --no-device-trace
expect 2 "there is no device trace any more" "$root/workbook" grade-class "$scratch" --no-device-trace
expect 2 "no test matches" "$root/workbook" test -L no-such-label
# The handout's mistakes: no folder, two, one inside the checkout, one that holds something.
mkdir -p "$scratch/not_empty" && : >"$scratch/not_empty/notes.txt"
expect 2 "handout needs a folder" "$root/workbook" handout
expect 2 "handout takes one folder" "$root/workbook" handout "$scratch/a" "$scratch/b"
expect 2 "is inside this checkout" "$root/workbook" handout "$root/labs/copy"
expect 2 "exists and is not an empty folder" "$root/workbook" handout "$scratch/not_empty"
# The classroom commands' mistakes.
mkdir -p "$scratch/empty_submission" "$scratch/no_class"
echo "not a lab" >"$scratch/empty_submission/notes.txt"
echo "not an archive" >"$scratch/broken.zip"
expect 2 "does not exist" "$root/workbook" grade --submission /nonexistent-submission
expect 2 "holds no lab file: expected labs/NN_topic/<topic>.cu" "$root/workbook" grade --submission "$scratch/empty_submission"
expect 2 "is not a zip archive that can be read" "$root/workbook" grade --submission "$scratch/broken.zip"
if $instructor_copy; then
  expect 2 "cannot be combined with --solution" "$root/workbook" grade --solution --submission "$scratch/empty_submission"
else
  expect 2 "--solution: this copy of the workbook has no solutions/" "$root/workbook" grade --solution
  expect 2 "calibrate measures the reference solutions: this copy of the workbook has no solutions/" "$root/workbook" calibrate 02
fi
# A name that gives no student to keep results under is refused by grade, and removes nobody's
# results; in a class every entry is a student, under a name made safe.
mkdir -p "$WORKBOOK_RESULTS/submissions/front-door-keep" "$scratch/odd_class/.hidden" "$scratch/odd_class/two"$'\n'"lines"
: >"$scratch/.zip"; : >"$scratch/odd_class/.zip"
expect 2 "gives no name to keep its results under" "$root/workbook" grade --submission "$scratch/.zip"
[ -d "$WORKBOOK_RESULTS/submissions/front-door-keep" ] || { echo "FAIL: a refused name removed another's results"; failures=$((failures + 1)); }
expect 0 "is the student two_lines" env CUDA_VISIBLE_DEVICES= "$root/workbook" grade-class "$scratch/odd_class" 02
# One seed for the whole class, drawn when none is given, said first in the summary.
if head -n 1 "$WORKBOOK_RESULTS/class/summary.txt" | grep -qE '^seed [0-9]+ for every submission .*--seed [0-9]+'; then
  echo "ok: grade-class draws one seed for the class and says it first in the summary"
else
  echo "FAIL: grade-class's summary does not begin with the class's seed"; failures=$((failures + 1))
fi
# The gradebook names the labs in its header, and each of those three as a student of its own.
if head -n 1 "$WORKBOOK_RESULTS/class/gradebook.csv" 2>/dev/null | grep -qx "student,02_memory,total" &&
   [ "$(cut -d, -f1 "$WORKBOOK_RESULTS/class/gradebook.csv" | tail -n +2 | sort | paste -sd' ')" = "_ _hidden two_lines" ]; then
  echo "ok: grade-class gives .zip, .hidden and a name with a newline each a row, under a name made safe"
else
  echo "FAIL: the class's gradebook.csv:"; cat "$WORKBOOK_RESULTS/class/gradebook.csv"; failures=$((failures + 1))
fi
# A flat upload, the lab's file alone (as Gradescope hands it over), is that lab's file.
mkdir -p "$scratch/flat_upload"
cp "$root/labs/02_memory/memory.cu" "$scratch/flat_upload/memory.cu"
flat=$("$root/workbook" grade 02 --submission "$scratch/flat_upload" 2>&1)
if grep -q "submission flat_upload: takes labs/02_memory/memory.cu" <<<"$flat"; then
  echo "ok: a flat upload of memory.cu alone is taken as lab 02's file"
else
  echo "FAIL: a flat upload of memory.cu was not taken:"; tail -n 5 <<<"$flat"; failures=$((failures + 1))
fi
if [ -d "$WORKBOOK_RESULTS/submissions/front-door-keep" ]; then
  echo "ok: an unnamed submission removed no other student's results"
else
  echo "FAIL: an unnamed submission removed another student's results"; failures=$((failures + 1))
fi
rm -rf "$WORKBOOK_RESULTS/submissions/front-door-keep"
expect 2 "--points: cannot read" "$root/workbook" grade --points /nonexistent/points.conf
# A points file names each step once, and only steps that exist: a mistake is refused with its line.
printf '*  1\n02.1 2\n04.12 3\n' >"$scratch/unknown.points"
printf '02.1 2\n\n02.1 3\n' >"$scratch/twice.points"
printf '99.1 2\n' >"$scratch/no_lab.points"
expect 2 "unknown.points:3: there is no step 04.12; 04_sgemm's steps are 04.1" "$root/workbook" grade 02 --points "$scratch/unknown.points"
expect 2 "twice.points:3: 02.1 is named twice (first on line 1)" "$root/workbook" grade 02 --points "$scratch/twice.points"
expect 2 "no_lab.points:1: there is no step 99.1 (no lab is numbered 99)" "$root/workbook" grade 02 --points "$scratch/no_lab.points"
# A submission without the lab's own file fails that lab, saying so: an empty archive, a folder in
# the file's place, a link to the checkout's file. Nothing of the checkout's starter is graded for it.
mkdir -p "$scratch/empty_archive" "$scratch/folder_instead/labs/02_memory/memory.cu" "$scratch/link_instead/labs/02_memory"
tar -cf "$scratch/empty_archive.tar" -C "$scratch/empty_archive" .
echo "not the file" >"$scratch/folder_instead/labs/02_memory/memory.cu/inside.txt"
ln -s "$root/labs/02_memory/memory.cu" "$scratch/link_instead/labs/02_memory/memory.cu"
for submission in empty_archive.tar folder_instead link_instead; do
  expect 1 "FAIL  02.6 the copy engine: 02_memory is not in the submission: it holds no labs/02_memory/memory.cu" \
    "$root/workbook" grade 02 --submission "$scratch/$submission"
done
expect 2 "holds no lab file" "$root/workbook" grade --submission "$scratch/empty_archive.tar" --json "$scratch/empty.json"
grep -q '"output": "not graded: submission empty_archive holds no lab file' "$scratch/empty.json" ||
  { echo "FAIL: a submission with no lab file left no results.json that says why"; failures=$((failures + 1)); }
# Results that cannot be written are said before anything runs, with what to do.
mkdir -p "$scratch/read_only_results"
cp "$root/workbook" "$scratch/read_only_results/"
: >"$scratch/read_only_results/results"  # a file where the folder must be (a mode would not stop root)
expect 2 "cannot write to $scratch/read_only_results/results: the workbook keeps its logs and reports there" \
  env -u WORKBOOK_RESULTS "$scratch/read_only_results/workbook" grade
# A checkout whose path has a space: the docs say they cannot be built there, and why.
mkdir -p "$scratch/with space"
cp "$root/workbook" "$scratch/with space/"
expect 2 "doxygen cannot build the site in a folder whose path has a space" "$scratch/with space/workbook" docs
expect 2 "needs the folder of submissions" "$root/workbook" grade-class
expect 2 "holds no submission" "$root/workbook" grade-class "$scratch/no_class"
expect 2 "unknown option --bogus" "$root/workbook" grade-class "$scratch/no_class" --bogus
expect 2 "--gpus: 'x' is not a GPU as CUDA_VISIBLE_DEVICES names one" "$root/workbook" grade-class "$scratch/odd_class" --gpus 0,x
expect 2 "--gpus names a GPU twice" "$root/workbook" grade-class "$scratch/odd_class" --gpus 0,0
# profile: one step by its id; without Nsight Compute it says where to get it, before building.
expect 2 "profile takes a step's id, like 03.2: ./workbook profile 03.2" "$root/workbook" profile
expect 2 "profile takes a step's id, like 03.2 (./workbook list shows them), not '03'" "$root/workbook" profile 03
expect 2 "03_transpose has no step 03.9; its steps are: 03.1" "$root/workbook" profile 03.9
expect 2 "profile takes one step, like 03.2, not '03.1' and '03.2'" "$root/workbook" profile 03.1 03.2
expect 2 "profile: unknown option --bogus" "$root/workbook" profile 03.1 --bogus
# After a word that is no option of the command, that command's usage, from the table --help prints.
expect 2 "usage: ./workbook profile STEP" "$root/workbook" profile 03.1 --bogus
expect 2 "      --no-build-ahead" "$root/workbook" grade-class "$scratch/no_class" --bogus
expect 3 "WORKBOOK_NCU names /nonexistent/ncu, which is not a program here" env WORKBOOK_NCU=/nonexistent/ncu "$root/workbook" profile 03.1
nvcc_folder=$(dirname "$(command -v nvcc 2>/dev/null || echo /none/nvcc)")
if command -v ncu >/dev/null 2>&1 || [ -x "$nvcc_folder/ncu" ]; then
  echo "ok: ncu is here, so its absence is not tested"
else
  expect 3 "and is not here (neither on PATH nor beside nvcc): install the toolkit's Nsight Compute" "$root/workbook" profile 03.1
fi
expect 2 "no lab '99'" "$root/workbook" calibrate 99
expect 2 "calibrate: unknown option --bogus" "$root/workbook" calibrate --bogus
# Without a GPU, calibrate says so before it builds anything (it only measures).
if $instructor_copy && ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  expect 77 "calibrate measures this machine's GPU, and none is visible here: nothing was built" "$root/workbook" calibrate 02
fi

# No GPU (hidden from the grader where there is one): exit 77, and the Gradescope file a grading
# service waits for still appears, relative to the folder the command ran in, saying why.
expect 77 "none is visible" in_folder "$scratch" env CUDA_VISIBLE_DEVICES= "$root/workbook" grade 02 --json results.json
if grep -q '"output": "not graded: no CUDA GPU is visible on this machine"' "$scratch/results.json" 2>/dev/null; then
  echo "ok: results.json says why nothing was graded"
else
  echo "FAIL: grade --json without a GPU left no results.json that says why"
  failures=$((failures + 1))
fi

# Without a GPU a student still hears what will fail on one: a launch past workbook::launch (the
# planner refuses it), and the compiler's warnings on their own file, at their line.
mkdir -p "$scratch/launches/labs/02_memory"
{ cat "$root/labs/02_memory/memory.cu"
  echo '__global__ void my_kernel(float* out) { int unused_here = 3; out[0] = 1.0f; }'
  echo 'void my_launcher(float* out) { /* my_kernel<<<1, 1>>>(out) is what I tried first */ my_kernel<<<1, 1>>>(out); }'
} >"$scratch/launches/labs/02_memory/memory.cu"
launches=$(env CUDA_VISIBLE_DEVICES= "$root/workbook" grade 02 --submission "$scratch/launches" 2>&1)
lines=$(wc -l <"$root/labs/02_memory/memory.cu")
if grep -q "warning: labs/02_memory/memory.cu($((lines + 2))): launches past workbook::launch" <<<"$launches" &&
   [ "$(grep -c 'launches past workbook::launch' <<<"$launches")" -eq 1 ]; then
  echo "ok: without a GPU, a <<<>>> launch is named at its line (once: the one in a comment is not)"
else
  echo "FAIL: without a GPU, the <<<>>> launch was not named:"; grep -E "warning|launch" <<<"$launches" | head -5; failures=$((failures + 1))
fi
if grep -qE "warning: labs/02_memory/memory.cu\($((lines + 1))\): warning .*unused_here" <<<"$launches"; then
  echo "ok: the compiler's warning on the student's file is on the console, at the student's line"
else
  echo "FAIL: the compiler's warning on the student's file was not shown:"; grep -i "warning" <<<"$launches" | head -5; failures=$((failures + 1))
fi

# Without a GPU each step's launcher is still planned, for every correctness case, and its plans
# checked as a GPU's grading checks them before it runs anything: a block wider than a GPU allows
# and a launcher that throws at a size are named, step by step, and the steps not started are said.
mkdir -p "$scratch/plans/labs/02_memory"
sed -e 's|^void copy_several_floats(const CopyProblem& problem, cudaStream_t) {|__global__ void too_wide_kernel(float* out) { out[threadIdx.x] = 0.0f; }\
void copy_several_floats(const CopyProblem\& problem, cudaStream_t stream) {|' \
    -e 's|  not_implemented("TODO(02.1)", "copy_several_floats");|  workbook::launch(too_wide_kernel, 1, 2048, 0, stream, problem.out);|' \
    -e 's|  not_implemented("TODO(02.2)", "copy_float2");|  if (problem.n > 1000) throw std::invalid_argument("my copy_float2 stops at 1000 floats");|' \
    "$root/labs/02_memory/memory.cu" >"$scratch/plans/labs/02_memory/memory.cu"
plans=$(env CUDA_VISIBLE_DEVICES= "$root/workbook" grade 02 --submission "$scratch/plans" 2>&1)
if grep -qE "warning: 02_memory without a GPU: 02.1: several floats per thread, n = 0 at .*a block of 2048 x 1 x 1 threads is more than" <<<"$plans" &&
   grep -qE "warning: 02_memory without a GPU: 02.2: float2 loads, n = [0-9]+ .*my copy_float2 stops at 1000 floats" <<<"$plans" &&
   grep -q "warning: 02_memory without a GPU: 02.3, 02.4, 02.5, 02.6: not implemented yet" <<<"$plans"; then
  echo "ok: without a GPU, a block too wide and a launcher's own refusal are named at their step and size"
else
  echo "FAIL: without a GPU, the plans' refusals were not named:"; grep -E "without a GPU|plans" <<<"$plans" | head -5; failures=$((failures + 1))
fi
# One step asked for: its findings alone.
plans=$(env CUDA_VISIBLE_DEVICES= "$root/workbook" grade 02.2 --submission "$scratch/plans" 2>&1)
if grep -q "without a GPU: 02.2: float2 loads" <<<"$plans" && ! grep -qE "without a GPU: 02.(1|3)" <<<"$plans"; then
  echo "ok: without a GPU, grade 02.2 names 02.2's refusal alone"
else
  echo "FAIL: grade 02.2 without a GPU named other steps' findings, or not its own:"; grep "without a GPU" <<<"$plans" | head -5; failures=$((failures + 1))
fi

# grade-class without a GPU: every submission is built and audited, none graded, and it exits 77.
mkdir -p "$scratch/cpu_class/bob/labs/01_latency"
cp "$root/labs/01_latency/latency.cu" "$scratch/cpu_class/bob/labs/01_latency/"
expect 77 "no CUDA GPU is visible here: the submissions were built and audited, not graded" \
  env CUDA_VISIBLE_DEVICES= "$root/workbook" grade-class "$scratch/cpu_class"

# Every student of a class gets a row per step and the same maximum whatever became of their
# submission (an empty folder, an archive that cannot be read, a starter), and a line that says why.
mkdir -p "$scratch/uneven_class/carl" "$scratch/uneven_class/eve/labs/02_memory"
echo "not a zip" >"$scratch/uneven_class/dora.zip"
cp "$root/labs/02_memory/memory.cu" "$scratch/uneven_class/eve/labs/02_memory/"
expect 77 "the submissions were built and audited, not graded" env CUDA_VISIBLE_DEVICES= "$root/workbook" grade-class "$scratch/uneven_class" 02
for who in carl dora eve; do
  tests=$(grep -c '"max_score": 1.00' "$WORKBOOK_RESULTS/class/$who/results.json" 2>/dev/null)
  rows=$(grep -c "^$who,02_memory," "$WORKBOOK_RESULTS/class/class.csv")
  line=$(grep -E "^$who " "$WORKBOOK_RESULTS/class/summary.txt")
  if [ "$tests" -eq 6 ] && [ "$rows" -eq 6 ] && [[ "$line" =~ \ 0\ of\ 6\ +steps\ +score\ 0\.00\ +[^\ ] ]]; then
    echo "ok: $who: 6 steps in results.json and the class CSV, and a reason: ${line#* score 0.00 }"
  else
    echo "FAIL: $who: $tests steps in results.json, $rows in class.csv, summary line '$line'"; failures=$((failures + 1))
  fi
done
# One step by its id, exactly: 04.1 is not 04.10, and a step that does not exist is named as such.
expect 2 "has no step 04.12; its steps are: 04.1 04.2" "$root/workbook" grade 04.12
expect 77 "none is visible" in_folder "$scratch" env CUDA_VISIBLE_DEVICES= "$root/workbook" grade 04.1 --json one.json
names=$(grep -o '"name": "[^"]*", "score"' "$scratch/one.json" 2>/dev/null)  # the tests', not the leaderboard's
if [ "$names" = '"name": "04_sgemm 04.1 coalesced thread arrangement", "score"' ]; then
  echo "ok: grade 04.1 takes step 04.1 alone"
else
  echo "FAIL: grade 04.1 took: $names"
  failures=$((failures + 1))
fi
# A lab named whole keeps every step beside a step of another lab named by its id.
expect 77 "none is visible" in_folder "$scratch" env CUDA_VISIBLE_DEVICES= "$root/workbook" grade 05 02.1 --json mixed.json
names=$(grep -oE '"name": "[^"]*", "score"' "$scratch/mixed.json" 2>/dev/null | grep -oE ' 0[25]\.[0-9]+ ' | tr -d ' ' | tr '\n' ' ')
if [ "$names" = "02.1 05.1 05.2 05.3 05.4 05.5 " ] || [ "$names" = "05.1 05.2 05.3 05.4 05.5 02.1 " ]; then
  echo "ok: grade 05 02.1 takes lab 05 whole and 02.1 alone"
else
  echo "FAIL: grade 05 02.1 took: $names"; failures=$((failures + 1))
fi
expect 0 "04.10  packed cp.async pipeline" "$root/workbook" list

# The grader binary's own flags.
expect 2 "--seed=N" "$grader" --seed 5
expect 2 "--data-key takes a non-negative whole number, not 'x'" "$grader" --data-key=x
expect 2 "unknown flag '--bogus'" "$grader" --bogus
expect 2 "--as-compute-capability takes a compute capability" "$grader" --as-compute-capability=9.0 "--test-case=02.1*"
echo "02.1 1 fast 95" >"$scratch/bad.bars"
expect 2 "cannot read the bars profile" "$grader" --bars=/nonexistent/gpu.bars "--test-case=02.1*"
expect 2 "bad.bars:1: a line is STEP INDEX MIN_SPEEDUP" "$grader" "--bars=$scratch/bad.bars" "--test-case=02.1*"
printf '# measured by ./workbook calibrate\nreference 01.1 fast\n' >"$scratch/bad-reference.bars"
expect 2 "bad-reference.bars:2: a reference line is reference KEY VALUE" "$grader" "--bars=$scratch/bad-reference.bars" "--test-case=02.1*"
expect 0 "--without=DEFENCE" "$grader" --help
# The reports, written by the runner (which links no student code); the rows a step's process
# leaves are taken only when they are that step's own (harness test "the runner takes a step's own
# rows, and no others").
printf 'one\ttwo\n' >"$scratch/bad.tsv"
expect 1 "a result row needs 18 fields" "$runner" summarize "--rows=$scratch/bad.tsv"
printf '02_memory\t02.1\tx\trun\tFAIL\t-\t-\tGB/s\t-\t-\t-\t-1\t-1\t-1\t\tit hung\t\t\n' >"$scratch/rows.tsv"
expect 1 "FAIL  02.1 x: it hung" "$runner" summarize "--rows=$scratch/rows.tsv"
expect 1 "cannot write" "$runner" summarize "--rows=$scratch/rows.tsv" --json=/nonexistent-folder/results.json
# A student's text reaches the console and every report as data (docs/integrity.md, as_data.h): a
# launcher's message that erases its line and writes PASS over it is shown escaped, nowhere raw, and
# results.json stays JSON. So is a path the console names (the runner's console is escaped whole).
printf '02_memory\t02.1\tx\trun\tFAIL\t-\t-\tGB/s\t-\t-\t-\t-1\t-1\t-1\t\tthe launcher threw: \033[2K\rPASS\t\t\n' >"$scratch/hostile.tsv"
expect 1 'FAIL  02.1 x: the launcher threw: \x1b[2K\rPASS' "$runner" summarize "--rows=$scratch/hostile.tsv" \
  "--json=$scratch/hostile.json" "--junit=$scratch/hostile.xml"
expect 1 'no results in /nonexistent/rows\x7f.tsv' "$runner" summarize "--rows=/nonexistent/rows"$'\177'".tsv"
"$runner" summarize "--rows=$scratch/hostile.tsv" >"$scratch/hostile.console" 2>&1
if grep -q $'[\033\r]' "$scratch/hostile.console" "$scratch/hostile.json" "$scratch/hostile.xml" ||
   ! python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$scratch/hostile.json"; then
  echo "FAIL: a student's escape sequence reached the console or a report raw, or results.json is not JSON"; failures=$((failures + 1))
else
  echo "ok: a student's escape sequence reaches the console, results.json and JUnit escaped, and results.json parses"
fi
expect 2 "needs a command" "$runner" frobnicate

# A filter that selects no step is refused: a grading that ran nothing must not read as a pass.
expect 2 "no test case matches" "$grader" "--test-case=99.1 no such step"
expect 2 "there is no step 02.9 here; the steps are 02.1" "$grader" --step=02.9
# The steps table is the one list of steps: every grader's step test cases are its table's rows,
# and --step=ID selects that step alone (04.1 is not 04.10; "06.7 Blelloch, conflict-free" has a
# comma, which doctest would split a filter at).
for starter in "$(dirname "$(dirname "$grader")")"/*/grade_*_starter; do
  table=$("$starter" --list-steps | awk -F'\t' '{print $1 " " $2}')
  cases=$("$starter" --list-test-cases | grep -E '^[0-9]{2}\.[0-9]+ ')
  [ "$table" = "$cases" ] || { echo "FAIL: $(basename "$starter")'s step test cases are not its steps table"; failures=$((failures + 1)); }
  while IFS= read -r step; do
    selected=$("$starter" "--step=${step%% *}" --list-test-cases | grep -E '^[0-9]{2}\.[0-9]+ ')
    [ "$selected" = "$step" ] || { echo "FAIL: --step=${step%% *} selects '$selected', not '$step'"; failures=$((failures + 1)); }
  done <<<"$table"
  echo "ok: each step of $(basename "$starter") is its table's, selected alone by --step"
  # --describe, the runner's one question to a lab: its folder, its topic and file, the same steps.
  lab=$(basename "$(dirname "$starter")") described=$("$starter" --describe --seed=7)
  if [ "$(grep -P '^step\t' <<<"$described" | cut -f2-)" = "$("$starter" --list-steps)" ] &&
     grep -qxP "lab\t$lab" <<<"$described" && grep -qxP "file\tlabs/$lab/${lab#*_}.cu" <<<"$described" &&
     grep -qP '^sizes\t.+' <<<"$described" && grep -qP '^metrics\t.+' <<<"$described"; then
    echo "ok: $(basename "$starter") --describe names its lab, its file, its steps as listed, its metrics and the sizes drawn"
  else
    echo "FAIL: $(basename "$starter") --describe said: $described"; failures=$((failures + 1))
  fi
done

# A step is numbered in four places a student reads, and all four agree with the steps table: the
# lab header's launchers (TODO(NN.k)), the starter's TODOs, the solution's list of steps at its
# top, and the handout.
for starter in "$(dirname "$(dirname "$grader")")"/*/grade_*_starter; do
  lab=$(basename "$starter"); lab=${lab#grade_}; lab=${lab%_starter}; number=${lab%%_*}
  topic=$(grep -oE 'TOPIC [a-z0-9_]+' "$root/labs/$lab/CMakeLists.txt" | cut -d' ' -f2)
  table=$("$starter" --list-steps | cut -f1 | tr '\n' ' ') before=$failures
  ids() { grep -oE "$1" "$2" | grep -oE "$number\.[0-9]+" | awk '!seen[$0]++' | tr '\n' ' '; }
  for place in "header labs/$lab/$topic.h TODO\($number\.[0-9]+\)" "starter labs/$lab/$topic.cu TODO\($number\.[0-9]+\)" \
               "solution solutions/$lab/$topic.cu ^//   $number\.[0-9]+ " "handout labs/$lab/README.md ^\|.TODO\($number\.[0-9]+\)"; do
    read -r what file pattern <<<"$place"
    [ -f "$root/$file" ] || continue  # a student's copy has no solutions/
    found=$(ids "$pattern" "$root/$file")
    [ "$found" = "$table" ] || { echo "FAIL: the $what ($file) numbers the steps '$found'; the $lab steps table has '$table'"; failures=$((failures + 1)); }
  done
  [ "$failures" -gt "$before" ] || echo "ok: $lab's steps are numbered alike in its table, header, starter, solution and handout"
done

# The sizes each lab draws from the seed: shown without a GPU, the same for the same seed (so that
# --seed replays them), not the same for another; the large draw of each lab is no multiple of its
# largest tile.
for starter in "$(dirname "$(dirname "$grader")")"/*/grade_*_starter; do
  first=$("$starter" --drawn-sizes --seed=42) again=$("$starter" --drawn-sizes --seed=42) other=$("$starter" --drawn-sizes --seed=43)
  if [ -z "$first" ] || [ "$first" != "$again" ] || [ "$first" = "$other" ]; then
    echo "FAIL: $(basename "$starter") --drawn-sizes: '$first', again '$again', seed 43 '$other'"
    failures=$((failures + 1))
  else
    echo "ok: $first"
  fi
done
for seed in 1 2 3 4 5 6 7 8 9 10; do
  read -r n < <("$(dirname "$(dirname "$grader")")/05_fft/grade_05_fft_starter" --drawn-sizes "--seed=$seed" | grep -oE '[0-9]+ transforms' | grep -oE '[0-9]+')
  [ $((n % 64)) -ne 0 ] || { echo "FAIL: seed $seed drew a batch of $n, a multiple of 64"; failures=$((failures + 1)); }
done

echo "$failures failed"
[ "$failures" -eq 0 ]
