#!/usr/bin/env bash
# `./workbook inspect` shows a student's kernels as the compiler made them, before any grading and
# without a GPU or solutions/ (the copy is a student's, without solutions/): in a copy
# whose lab 02 file holds a kernel, `inspect 02.1` names it with its registers, spills and the warps
# its registers allow, keeps ptxas's lines, and gives the SASS or its command; a file that includes
# what grade refuses is refused by inspect too, uncompiled. CPU only.
#   test_inspect.sh SOURCE_DIR
set -u
source "$(dirname "$0")/workbook_copy.sh" "$1" solutions  # $copy: a student's copy (no solutions/), with its own results/
file="$copy/labs/02_memory/memory.cu"
python3 - "$file" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
kernel = ("__global__ void inspected_copy_kernel(const float* in, float* out, std::size_t n) {\n"
          "  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;\n"
          "  if (i < n) out[i] = in[i];\n}\n\n")
open(path, "w").write(text.replace("void copy_several_floats(", kernel + "void copy_several_floats(", 1))
PY
failures=0
status=0
(cd "$copy" && WORKBOOK_PRESET=cpu CUDA_VISIBLE_DEVICES= ./workbook inspect 02.1) >"$copy/inspect.log" 2>&1 || status=$?
row=$(grep -E '^inspected_copy_kernel\(float const\*, float\*, unsigned long\) +sm_[0-9]+a? +[0-9]+ +0 / 0 +[0-9]+ +[0-9]+ +[0-9]+ of 64' "$copy/inspect.log")
if [ "$status" -eq 0 ] && [ -n "$row" ] && [ -s "$copy/results/inspect/02_memory.ptxas.txt" ] &&
   grep -qE "SASS(, kernel by kernel: results/inspect/02_memory.sass|: this toolkit has no cuobjdump; where one has it: cuobjdump -sass results/inspect/02_memory.o)" "$copy/inspect.log"; then
  echo "ok: inspect 02.1 shows the student's kernel: $row"
else
  echo "FAIL: inspect 02.1 exited $status:"; tail -n 20 "$copy/inspect.log"; failures=$((failures + 1))
fi
printf '#include "/etc/passwd"\n' >>"$file"
status=0
(cd "$copy" && WORKBOOK_PRESET=cpu CUDA_VISIBLE_DEVICES= ./workbook inspect 02) >"$copy/refused.log" 2>&1 || status=$?
if [ "$status" -eq 1 ] && grep -q 'is refused before it is compiled' "$copy/refused.log" && grep -q '/etc/passwd' "$copy/refused.log" &&
   ! grep -q 'root:' "$copy/refused.log"; then
  echo "ok: inspect refuses a file that includes /etc/passwd, as grade does, uncompiled"
else
  echo "FAIL: inspect of a file including /etc/passwd exited $status:"; tail -n 10 "$copy/refused.log"; failures=$((failures + 1))
fi
status=0
(cd "$copy" && WORKBOOK_PRESET=cpu ./workbook inspect) >"$copy/usage.log" 2>&1 || status=$?
if [ "$status" -eq 2 ] && grep -q 'inspect needs a lab or a step' "$copy/usage.log"; then
  echo "ok: inspect without a lab is a usage error that says what to write"
else
  echo "FAIL: inspect without a lab exited $status:"; tail -n 5 "$copy/usage.log"; failures=$((failures + 1))
fi
[ "$failures" -eq 0 ]
