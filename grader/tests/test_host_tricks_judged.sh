#!/usr/bin/env bash
# The trust boundary through the front door: eight students of lab 02 whose host code
# or kernels cheat, graded by grade-class as any class is. Each copies honestly (a float4 copy at the step's
# occupancy: 02.1-02.3 clear their bars, 02.4 and 02.6 cannot) and adds one trick, made from lab
# 02's mutants as a student hands a file in (one_file_solution.py):
#   forger:    writes passing rows from a constructor and at every call, into every descriptor and
#              rows file it can name, and prints a passing scorecard on its console;
#   straggler: leaves a grandchild in a session of its own, to write passing rows after its step;
#   scribbler: zeroes every double that could be a bar above its argument's address;
#   printer:   its kernel prints forged verdicts, which reach grade.log only labelled, after "| "
#              (its 02.3 is not checked: the printf costs the copy about that bar's margin);
#   reader:    looks for the reference solution in the grading checkout and throws its text (its
#              planner reads nothing of the checkout or of results/, so it copies honestly);
#   chainer:   starts 64 processes, each in a session of its own and handed to a new parent, each
#              spinning (they end with its planner's PID namespace);
#   rememberer: copies only while a word past its __device__ variable's end is clear, and sets it
#              after (every call finds its module as loaded, the word's slot included);
#   drawer:    throws terminal escape sequences that would redraw the console with a PASS (every
#              step fails, and no raw escape byte reaches any file or the console).
# Each must get exactly its honest copy's verdicts in class.csv, no forged text may reach the
# console, a row, results.json or class.csv, and no file of the results may change after the
# grading ends (the straggler's grandchild ended with its step). GPU only (77 without one).
#   test_host_tricks_judged.sh ROOT WORK_DIR
set -uo pipefail
root=$1 work=$2
nvidia-smi -L 2>/dev/null | grep -q '^GPU' || { echo "no GPU: skipped"; exit 77; }
rm -rf "$work"; mkdir -p "$work"; chmod 755 "$work"
export WORKBOOK_RESULTS="$work/results"  # the class's results are this test's own
# The reference solutions (or files made from them) are handed in on purpose: graded, not refused as copies.
export WORKBOOK_GRADE_SOLUTION_COPIES=1
mutants="$root/solutions/02_memory/proofs/mutants"
for pair in forger:forges_rows scribbler:scribbles_by_pointer straggler:outlives_its_step printer:prints_like_the_grader \
            reader:reads_the_answer_key chainer:chain_outlives_its_step rememberer:remembers_past_its_variable \
            drawer:redraws_the_terminal; do
  student=${pair%%:*} mutant=${pair#*:}
  python3 "$root/grader/tests/one_file_solution.py" "$mutants/$mutant.cu" "$work/class/$student/labs/02_memory/memory.cu" || exit 2
done
"$root/workbook" grade-class "$work/class" 02 --seed 7 --timeout 120 >"$work/console.log" 2>&1
echo "grade-class exit code $?"
cat "$work/console.log"
results="$WORKBOOK_RESULTS"
failures=0
python3 - "$results/class/class.csv" <<'PY' || failures=$((failures + 1))
import csv, sys
verdicts = {}
for row in csv.DictReader(open(sys.argv[1])):
    if row["step"].strip():
        verdicts[(row["student"], row["step"].split()[0])] = row["verdict"]
bad = 0
for student in ("forger", "scribbler", "straggler", "printer", "reader", "chainer", "rememberer", "drawer"):
    for step, want in (("02.1", "PASS"), ("02.2", "PASS"), ("02.3", "PASS"), ("02.4", "FAIL"), ("02.6", "FAIL")):
        if student == "drawer":
            want = "FAIL"  # it throws at every call
        if student == "printer" and step == "02.3":
            continue  # its printf costs the copy about its margin on 02.3: proves nothing either way
        got = verdicts.get((student, step), "missing")
        ok = got.startswith(want)
        bad += not ok
        print(("ok" if ok else "FAIL") + f": {student} {step}: {got} (its honest copy's: {want})")
sys.exit(1 if bad else 0)
PY
forged() {  # forged WHAT FILES...: none of the files holds the forged rows' text
  if grep -lE 'FORGED|LINGERED' "${@:2}" 2>/dev/null; then echo "FAIL: forged text in $1"; failures=$((failures + 1));
  else echo "ok: no forged text in $1"; fi
}
forged "the console" "$work/console.log"
forged "class.csv and the summary" "$results/class/class.csv" "$results/class/summary.txt"
forged "the students' results.json" "$results"/class/*/results.json
forged "the students' rows" "$results"/class/*/submission/grade-rows.tsv "$results"/submissions/*/grade-rows.tsv
# The reader found no solution to throw: its text is in no file and not on the console.
if grep -rl 'THE ANSWER KEY' "$work/console.log" "$results" --exclude-dir=taken; then
  echo "FAIL: the reference solution's text reached a file"; failures=$((failures + 1))
else echo "ok: no text of the reference solution reached the console or a file"; fi
# The drawer's escape sequences reach every file and the console as text, never as raw bytes.
if grep -rlP '\x1b' "$work/console.log" "$results" --exclude-dir=taken --include='*.log' --include='*.json' --include='*.csv' \
     --include='*.txt' --include='*.tsv' --include='*.xml'; then
  echo "FAIL: a raw escape byte reached a file"; failures=$((failures + 1))
elif ! grep -rq 'PASS' "$results"/class/drawer*/results.json 2>/dev/null; then
  echo "FAIL: the drawer's message is not in its results.json"; failures=$((failures + 1))
else echo "ok: the drawer's escape sequences reached every file as text"; fi
# The printer's kernels printed into the judge's standard output, which became its grade.log: every
# line of theirs is there after "| " (some are, or the test proves nothing), none at a line's start.
printer_log=$(grep -l '6 of 6 steps pass FORGED' "$results"/class/*/submission/grade.log "$results"/submissions/*/grade.log 2>/dev/null | head -1)
if [ -z "$printer_log" ]; then echo "FAIL: the printer's kernels printed nothing into a grade.log"; failures=$((failures + 1))
elif grep -n 'FORGED' "$printer_log" | grep -qv '^[0-9]*:| '; then
  echo "FAIL: a kernel's forged line reached $printer_log unlabelled:"; grep -n 'FORGED' "$printer_log" | grep -v '^[0-9]*:| ' | head -3
  failures=$((failures + 1))
else echo "ok: the printer's $(grep -c '^| .*FORGED' "$printer_log") forged lines are each after \"| \" in its grade.log"; fi
# Whatever was left running ended with its step. The straggler is graded last (grade-class takes
# the students in order): nothing under results/ changes while its grandchild would have woken (8 s
# after its step began), and its text is in no file there but its own source.
if grep -rl LINGERED "$results" --exclude-dir=taken; then echo "FAIL: the straggler's rows reached a file"; failures=$((failures + 1));
else echo "ok: the straggler's rows reached no file"; fi
( cd "$results" && find . -type f -exec md5sum {} + | sort ) >"$work/before.md5"
sleep 12
( cd "$results" && find . -type f -exec md5sum {} + | sort ) >"$work/after.md5"
if cmp -s "$work/before.md5" "$work/after.md5"; then echo "ok: no file under results/ changed after the grading"
else echo "FAIL: files changed after the grading:"; diff "$work/before.md5" "$work/after.md5" | head; failures=$((failures + 1)); fi
if pgrep -f plan_02_memory_submission >/dev/null; then echo "FAIL: a planner outlived its step"; failures=$((failures + 1));
else echo "ok: no planner outlived its step"; fi
echo "$failures failures"
[ "$failures" -eq 0 ]
