# Sourced by the tests that grade in a copy of the workbook, so that nothing they build or write
# touches the checkout's own build or results:
#   source workbook_copy.sh SOURCE_DIR [FOLDER...]
# sets `copy`, a new temporary folder removed when the test exits, holding SOURCE_DIR's files
# without its build, results, history and scratch, nor the FOLDERs named (solutions, say). The
# copy's ./workbook keeps its results in the copy's own results/.
unset WORKBOOK_RESULTS
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
left_out=(--exclude=./build --exclude=./results --exclude=./.git --exclude=./.scratch)
for folder in "${@:2}"; do left_out+=("--exclude=./$folder"); done
(cd "$1" && tar "${left_out[@]}" -cf - .) | (cd "$copy" && tar -xf -)
