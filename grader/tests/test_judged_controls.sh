#!/usr/bin/env bash
# Ordinary C++ in a launcher, the control of the judge: lab 02's starter with a helper a
# student writes while debugging (iostream, a string stream, printf, std::to_string and std::stoi,
# a namespace-scope std::string, a function-local static std::vector, malloc, snprintf, assert),
# called by 02.1's launcher, and a plain __device__ function, handed in through --submission.
#   - its host code runs only in its planner: nothing refuses it, it builds, and on a GPU every
#     step fails with its TODO and nothing else;
#   - asked to be graded linked into its grader (--linked), it is refused before anything is built:
#     a student's host code never runs in the process that judges it.
#   test_judged_controls.sh ROOT
set -u
root=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
chmod 755 "$scratch"
export WORKBOOK_RESULTS="$scratch/results"  # its results are this test's own
mkdir -p "$scratch/ordinary/labs/02_memory"
python3 - "$root/labs/02_memory/memory.cu" "$scratch/ordinary/labs/02_memory/memory.cu" <<'PY' || exit 2
import sys
text = open(sys.argv[1]).read()
includes = "#include <unistd.h>\n\n#include <cassert>\n#include <cstdio>\n#include <cstdlib>\n#include <iostream>\n#include <sstream>\n#include <vector>\n"
launcher = "void copy_several_floats(const CopyProblem& problem, cudaStream_t) {\n"
helper = '''const std::string kGreeting = "planning copy_several_floats";

// A plain (non-inline) __device__ helper, as a student factors a kernel's code out.
__device__ float scaled(float value, float factor) { return value * factor; }

void say_what_is_planned(std::size_t n) {
  static std::vector<std::size_t> seen;
  seen.push_back(n);
  std::ostringstream line;
  line << kGreeting << " for n = " << n << " (" << seen.size() << " calls so far)";
  std::cout << line.str() << '\\n';
  std::printf("planning as user id %u\\n", static_cast<unsigned>(getuid()));
  std::FILE* shadow = std::fopen("/etc/shadow", "r");  // root's alone
  std::printf("root's files readable: %s\\n", shadow != nullptr ? "yes" : "no");
  if (shadow != nullptr) std::fclose(shadow);
  std::printf("%s, %d\\n", std::to_string(1.5).c_str(), std::stoi("42"));
  void* scratch = std::malloc(64);
  assert(scratch != nullptr);
  std::snprintf(static_cast<char*>(scratch), 64, "%zu", n);
  std::free(scratch);
}

'''
if launcher not in text or "#include <algorithm>\n" not in text:
    sys.exit("the starter's 02.1 launcher or its includes moved: update test_judged_controls.sh")
text = text.replace("#include <algorithm>\n", "#include <algorithm>\n" + includes, 1)
text = text.replace(launcher, helper + launcher + "  say_what_is_planned(problem.n);\n", 1)
open(sys.argv[2], "w").write(text)
PY
failures=0
check() {  # check WHAT OUTPUT_FILE PATTERN present|absent
  if grep -qE "$3" "$2"; then found=present; else found=absent; fi
  if [ "$found" = "$4" ]; then echo "ok: $1"; else echo "FAIL: $1 (/$3/ is $found)"; failures=$((failures + 1)); fi
}
cd "$root" || exit 2
./workbook grade 02 --submission "$scratch/ordinary" --linked >"$scratch/linked.out" 2>&1
cat "$scratch/linked.out"
check "linked into its grader, a student's file is refused before anything is built" "$scratch/linked.out" \
  'error: --linked .* grades only the reference solutions' present
check "linked, nothing was built" "$scratch/linked.out" 'building' absent
./workbook grade 02 --submission "$scratch/ordinary" >"$scratch/judged.out" 2>&1
cat "$scratch/judged.out"
check "judged, the file's host code runs in its planner" "$scratch/judged.out" 'built: its host code will run only in its planner' present
check "judged, nothing refuses it" "$scratch/judged.out" '\[host-code\]|does not compile|did not compile' absent
planners=(build/submissions-*/labs/02_memory/plan_02_memory_submission)  # the folder is named for the preset
[ -x "${planners[0]}" ] && echo "ok: its planner was built" || { echo "FAIL: its planner was not built"; failures=$((failures + 1)); }
if grep -q "grading needs a CUDA GPU" "$scratch/judged.out"; then
  echo "no GPU here: the steps themselves were not graded"
else
  steps=$(grep -cE '^FAIL  02\.[0-9]+ ' "$scratch/judged.out")
  todos=$(grep -cE '^FAIL  02\.[0-9]+ .*TODO\(02\.[0-9]+\)' "$scratch/judged.out")
  [ "$steps" -eq 6 ] && [ "$todos" -eq 6 ] && echo "ok: judged on the GPU, every step fails with its TODO" ||
    { echo "FAIL: judged on the GPU, $todos of $steps failures are the TODOs"; failures=$((failures + 1)); }
  # As root, each step runs as an unprivileged user of its own, from a range no account uses (the
  # runner says so), and its planner lives in a user namespace of its own that maps no id of the
  # machine's: it sees itself as the overflow id, 65534, and cannot read what only root may.
  if [ "$(id -u)" -eq 0 ]; then
    log="$WORKBOOK_RESULTS/submissions/ordinary/grade.log"
    check "each step runs as a user of its own" "$scratch/judged.out" 'each step runs as an unprivileged user of its own' present
    id=$(sed -n 's/.*planning as user id \([0-9]*\).*/\1/p' "$log" | head -n 1)
    [ "$id" = 65534 ] && echo "ok: its planner sees no id of the machine's (user id $id inside its namespace)" ||
      { echo "FAIL: its planner sees itself as user id '${id}', not as the overflow id of a namespace that maps none"; failures=$((failures + 1)); }
    check "its planner cannot read what only root may" "$log" "root's files readable: no" present
    check "its planner is not root" "$log" "root's files readable: yes" absent
  fi
fi
[ "$failures" -eq 0 ]
