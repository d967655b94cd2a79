#!/usr/bin/env bash
# Adding a lab is its three folders (docs/guide.md, "Adding a lab"): in a copy of the workbook, a
# seventh lab, 07_memory, is lab 02's three folders copied with the lab's number changed, and nothing
# else of the tree touched. The copy must find it by its folders alone: configure it with its proofs,
# build its judge, planner and starter, list its steps, and grade it as far as a machine without a
# GPU goes (built, then exit 77), with its step ids taken by `grade`. CPU only; about two minutes of
# building on two cores.
#   test_seventh_lab.sh SOURCE_DIR BUILD_DIR (the checkout's build, for lab 02's tests)
set -u
source "$(dirname "$0")/workbook_copy.sh" "$1"  # $copy: the copy, with its own results/ (built for one architecture)
before=$(cd "$copy" && find . -path ./build -prune -o -type f -print | sort | xargs md5sum)

# The new lab: lab 02's folders, numbered 07. Its topic stays "memory" (the folder is NN_topic).
for tree in labs grader/labs solutions; do
  cp -r "$copy/$tree/02_memory" "$copy/$tree/07_memory"
  find "$copy/$tree/07_memory" -type f -exec sed -i -E 's/02_memory/07_memory/g; s/(^|[^0-9.])02\.([0-9])/\107.\2/g' {} +
done
after=$(cd "$copy" && find . -path ./build -prune -o -type f -not -path './labs/07_memory/*' -not -path './grader/labs/07_memory/*' \
          -not -path './solutions/07_memory/*' -print | sort | xargs md5sum)
failures=0
if [ "$before" = "$after" ]; then
  echo "ok: the seventh lab is its three folders; no other file of the copy changed"
else
  echo "FAIL: adding the lab changed other files:"; diff <(echo "$before") <(echo "$after") | head; failures=$((failures + 1))
fi

# Configured with the others, its proofs among them: the top CMakeLists.txt finds the lab's folders.
if ! (cd "$copy" && cmake --preset cpu -S . -B build/cpu "-DCMAKE_CUDA_ARCHITECTURES=$WORKBOOK_CUDA_ARCHITECTURES") >"$copy/configure.log" 2>&1; then
  echo "FAIL: the copy with a seventh lab does not configure:"; tail -n 20 "$copy/configure.log"; exit 1
fi
# Graded as far as this machine goes: the runner finds the lab by its folder, builds what grades it
# (its judge, the starter's planner and kernels) and stops at the GPU it lacks.
status=0
(cd "$copy" && WORKBOOK_PRESET=cpu CUDA_VISIBLE_DEVICES= ./workbook grade 07 --json seventh.json) >"$copy/grade.log" 2>&1 || status=$?
if [ "$status" -eq 77 ] && [ "$(grep -oE '"name": "07_memory 07\.[0-9]+ ' "$copy/seventh.json" | wc -l)" -eq 6 ] &&
   grep -q "07_memory: labs/07_memory/memory.cu built" "$copy/grade.log"; then
  echo "ok: grade 07 builds the seventh lab and reaches its six steps (no GPU here: exit 77, each step said in results.json)"
else
  echo "FAIL: grade 07 exited $status:"; tail -n 15 "$copy/grade.log"; failures=$((failures + 1))
fi
# Its tests, written by its tests program from what the build made and its proofs table: as many
# mutants' as lab 02's in the checkout's own build.
if ninja -C "$copy/build/cpu" lab_tests_07_memory_written >"$copy/tests.log" 2>&1; then
  listed=$(cd "$copy/build/cpu" && ctest -N -L 07_memory | grep -cE 'Test +#')
  mutants_07=$(cd "$copy/build/cpu" && ctest -N -L 07_memory -L mutant | grep -cE 'Test +#')
  mutants_02=$(cd "$2" && ctest -N -L 02_memory -L mutant | grep -cE 'Test +#')
  if [ "$listed" -gt 0 ] && [ "$mutants_07" -eq "$mutants_02" ]; then
    echo "ok: CTest holds the seventh lab's $listed tests, its $mutants_07 mutants' as lab 02's"
  else
    echo "FAIL: CTest holds $listed tests of 07_memory, $mutants_07 mutants' (lab 02: $mutants_02)"; failures=$((failures + 1))
  fi
else
  echo "FAIL: the seventh lab's tests were not written:"; tail -n 15 "$copy/tests.log"; failures=$((failures + 1))
fi
steps=$("$copy/build/cpu/labs/07_memory/judge_07_memory" --list-steps | cut -f1 | tr '\n' ' ')
if [ "$steps" = "07.1 07.2 07.3 07.4 07.5 07.6 " ]; then
  echo "ok: its judge lists its steps, 07.1 to 07.6"
else
  echo "FAIL: judge_07_memory --list-steps: '$steps'"; failures=$((failures + 1))
fi
status=0
(cd "$copy" && WORKBOOK_PRESET=cpu CUDA_VISIBLE_DEVICES= ./workbook grade 07.3) >"$copy/step.log" 2>&1 || status=$?
if [ "$status" -eq 77 ]; then
  echo "ok: grade 07.3 takes the seventh lab's step by its id"
else
  echo "FAIL: grade 07.3 exited $status:"; tail -n 5 "$copy/step.log"; failures=$((failures + 1))
fi
status=0
(cd "$copy" && WORKBOOK_PRESET=cpu CUDA_VISIBLE_DEVICES= ./workbook grade 07.9) >"$copy/none.log" 2>&1 || status=$?
if [ "$status" -eq 2 ] && grep -q "07_memory has no step 07.9" "$copy/none.log"; then
  echo "ok: grade 07.9 is refused, naming the seventh lab's steps"
else
  echo "FAIL: grade 07.9 exited $status:"; tail -n 5 "$copy/none.log"; failures=$((failures + 1))
fi
echo "seventh lab: $failures failed"
[ "$failures" -eq 0 ]
