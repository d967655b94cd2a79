#!/usr/bin/env bash
# ./workbook handout writes a student's copy that holds no answer: no file of the instructor tree
# (solutions/: the reference solutions, witnesses, mutants and NOTES), by path or by content, no
# history, and a build whose only graders are the starters'. The handout checks itself (it builds
# the copy from scratch; with a GPU it grades it: every step must fail with a TODO); this test
# checks the copy again from outside, by other means. CPU (about two minutes of building on two
# cores); with a GPU it grades the copy too.
#   test_handout.sh ROOT
set -u
root=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
copy="$scratch/course"
failures=0
check() {  # check WHAT COMMAND...: COMMAND succeeds
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}

status=0
"$root/workbook" handout "$copy" >"$scratch/handout.log" 2>&1 || status=$?
cat "$scratch/handout.log"
[ "$status" -eq 0 ] || { echo "FAIL: ./workbook handout exited $status"; exit 1; }

check "the copy has no solutions/" test ! -e "$copy/solutions"
check "the copy has no history (.git)" test ! -e "$copy/.git"
check "the copy has no build or results of the checkout's" test ! -e "$copy/build" -a ! -e "$copy/results"
named=$(cd "$copy" && find . \( -name 'witness.*' -o -name mutants -o -name proofs -o -name NOTES.md -o -name experiments \) -print)
check "the copy has no witness, mutant, proof, NOTES or experiment by name${named:+ (found: $named)}" test -z "$named"
# No file of the copy has the content of one of solutions/, wherever it sits.
(cd "$root/solutions" && find . -type f -size +0 -exec sha256sum {} +) | awk '{ print $1 }' | sort -u >"$scratch/instructor.sums"
(cd "$copy" && find . -type f -exec sha256sum {} +) | sort >"$scratch/copy.sums"
same=$(awk '{ print $1 }' "$scratch/copy.sums" | sort -u | comm -12 - "$scratch/instructor.sums")
check "no file of the copy is a copy of one of solutions/" test -z "$same"
# Every file of the course is there: git's files, less solutions/ (where the checkout is a clone).
if [ -d "$root/.git" ] && command -v git >/dev/null 2>&1; then
  git -C "$root" ls-files --cached --others --exclude-standard | grep -vE '^(solutions|build|results)/' | grep -vE '^\.[^/]+/' |
    while IFS= read -r file; do [ -f "$root/$file" ] && [ ! -L "$root/$file" ] && echo "$file"; done | sort >"$scratch/wanted"
  (cd "$copy" && find . -type f | sed 's|^\./||' | grep -vE '^\.[^/]+/' | sort) >"$scratch/got"
  check "the copy holds every file of the course ($(wc -l <"$scratch/wanted") files)" diff "$scratch/wanted" "$scratch/got"
fi
# Configured as a student's checkout is, its build has no grader but the starters' and no test of
# a solution, witness or mutant.
if cmake --preset cpu -S "$copy" -B "$copy/build/cpu" >"$scratch/configure.log" 2>&1; then
  graders=$(ninja -C "$copy/build/cpu" -t targets all | grep -oE '^grade_[0-9]{2}_[a-z_]+:' | tr -d ':' | sort -u)
  beyond=$(printf '%s\n' "$graders" | grep -v '_starter$' || true)
  check "the copy's build has $(printf '%s\n' "$graders" | grep -c _starter) graders, all the starters'${beyond:+ (also: $beyond)}" \
    test -z "$beyond" -a "$(printf '%s\n' "$graders" | grep -c _starter)" -eq "$(ls -d "$root"/labs/[0-9][0-9]_* | wc -l)"
  proofs=$(ctest --test-dir "$copy/build/cpu" -N | grep -E 'mutant|solution|witness|bars (admit|reject)|repeat' || true)
  check "the copy's tests name no solution, witness or mutant${proofs:+ (found: $proofs)}" test -z "$proofs"
else
  echo "FAIL: the copy does not configure:"; tail -n 20 "$scratch/configure.log"; failures=$((failures + 1))
fi
[ "$failures" -eq 0 ]
