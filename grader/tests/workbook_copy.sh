# Sourced by the tests that grade in a copy of the workbook, so that nothing they build or write
# touches the checkout's own build or results:
#   source workbook_copy.sh SOURCE_DIR [FOLDER...]
# sets `copy`, a folder holding SOURCE_DIR's files without its build, results, history and scratch,
# nor the FOLDERs named (solutions, say). The copy's ./workbook keeps its results in the copy's own
# results/.
# By default the copy is new and removed when the test exits. With WORKBOOK_TEST_COPY set (CTest
# sets it for the tests that share one, grader/tests/CMakeLists.txt), the copy is that folder, kept:
# the handout's test writes and builds it first (test_handout.sh); here its files are put back as
# SOURCE_DIR has them (whatever the handout or an earlier test edited, added or wrote is gone) and
# only its build/ stays, so the tests pay for building the grader once, not each. A test that leaves
# out other folders than the one before it configures the build again (the build's objects stay
# where their commands are the same).
# Every copy is built for one GPU architecture, whatever the checkout's: what these tests check of
# grading one proves as well as two, at half the compiling; the checkout's own build proves both.
unset WORKBOOK_RESULTS
export WORKBOOK_CUDA_ARCHITECTURES=90
left_out=(--exclude=./build --exclude=./results --exclude=./.git --exclude=./.scratch)
for folder in "${@:2}"; do left_out+=("--exclude=./$folder"); done
if [ -n "${WORKBOOK_TEST_COPY:-}" ]; then
  copy=$WORKBOOK_TEST_COPY
  mkdir -p "$copy/build"
  find "$copy" -mindepth 1 -maxdepth 1 ! -name build -exec rm -rf {} +
  if [ "$(cat "$copy/build/left-out" 2>/dev/null)" != "${*:2}" ]; then
    find "$copy/build" -maxdepth 2 -name build.ninja -delete  # ./workbook then configures it again
    echo "${*:2}" >"$copy/build/left-out"
  fi
else
  copy=$(mktemp -d)
  trap 'rm -rf "$copy"' EXIT
fi
(cd "$1" && tar "${left_out[@]}" -cf - .) | (cd "$copy" && tar -xf -)
