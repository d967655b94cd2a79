#!/usr/bin/env bash
# A submission that does not compile fails each step with the compiler's reason, at the student's
# line, in results.json (the student reads it, never the grading machine's logs), and the scorecard
# names the submission's own log; so do a launcher defined with other parameters than its header's
# (not a linker error from a grader file) and a launch whose arguments do not fit its kernel (not an
# error inside launch.cuh), each saying what to change. Graded from the checkout through
# --submission, in its submissions' build: a file that does not compile fails the grading, GPU or
# none.
#   test_submission_errors.sh ROOT
set -u
root=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
chmod 755 "$scratch"
export WORKBOOK_RESULTS="$scratch/results"  # its results are this test's own
failures=0
submissions="$scratch/handed-in"
mkdir -p "$submissions/bad_syntax/labs/02_memory" "$submissions/other_signature/labs/02_memory" "$submissions/wrong_launch/labs/02_memory"
starter="$root/labs/02_memory/memory.cu"
sed 's/^namespace memory_lab {$/namespace memory_lab { this is not C++/' "$starter" >"$submissions/bad_syntax/labs/02_memory/memory.cu"
sed 's/^void copy_float2(const CopyProblem& problem, cudaStream_t) {$/void copy_float2(const CopyProblem\& problem, int extra, cudaStream_t) {/' \
  "$starter" >"$submissions/other_signature/labs/02_memory/memory.cu"
python3 - "$starter" "$submissions/wrong_launch/labs/02_memory/memory.cu" <<'PY'
import sys
text = open(sys.argv[1]).read()
kernel = "__global__ void copy_kernel(const float* in, float* out, std::size_t n) {}\n\n"
launch = '  workbook::launch(copy_kernel, 1, 32, 0, nullptr, problem.in, problem.out);\n'
text = text.replace("void copy_several_floats(", kernel + "void copy_several_floats(", 1)
text = text.replace('  not_implemented("TODO(02.1)", "copy_several_floats");\n', launch + '  not_implemented("TODO(02.1)", "copy_several_floats");\n', 1)
open(sys.argv[2], "w").write(text)
PY
syntax_line=$(grep -n 'this is not C++' "$submissions/bad_syntax/labs/02_memory/memory.cu" | cut -d: -f1)
signature_line=$(grep -n 'int extra, cudaStream_t' "$submissions/other_signature/labs/02_memory/memory.cu" | cut -d: -f1)
launch_line=$(grep -n 'workbook::launch(copy_kernel' "$submissions/wrong_launch/labs/02_memory/memory.cu" | cut -d: -f1)
for case in "bad_syntax|labs/02_memory/memory.cu($syntax_line): error" \
            "other_signature|labs/02_memory/memory.cu($signature_line): copy_float2 is not defined with the parameters its lab's header declares (memory_lab::CopyProblem const&, cudaStream_t)" \
            "wrong_launch|labs/02_memory/memory.cu($launch_line): error: workbook::launch(kernel, grid, block, shared bytes, stream, arguments...) passes the kernel one argument per parameter"; do
  who=${case%%|*} said=${case#*|}
  status=0
  (cd "$root" && ./workbook grade 02 --submission "$submissions/$who" --json "$submissions/$who.json") \
    >"$submissions/$who.log" 2>&1 || status=$?
  if [ "$status" -eq 1 ] && grep -qF "\"output\": \"02_memory does not compile: $said" "$submissions/$who.json" &&
     grep -qF "(every column, the bars included, for each step: $WORKBOOK_RESULTS/submissions/$who/grade.log)" "$submissions/$who.log"; then
    echo "ok: $who: each step's reason in results.json is $said..."
  else
    echo "FAIL: $who exited $status:"; head -c 700 "$submissions/$who.json"; tail -n 5 "$submissions/$who.log"; failures=$((failures + 1))
  fi
done
[ "$failures" -eq 0 ]
