#!/usr/bin/env bash
# The course site builds without a warning (Doxygen's WARN_AS_ERROR catches a broken link or a
# stale \ref in a handout), and every image a page shows is in it (Doxygen copies those it finds in
# IMAGE_PATH and says nothing of the others).
# usage: test_docs.sh ROOT DOXYGEN
set -uo pipefail
root=$1 doxygen=$2
# ./workbook docs refuses such a checkout with a clear message (the front-door test shows it).
case "$root" in *" "*) echo "skipped: doxygen cannot build the site in a path with a space"; exit 77 ;; esac
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$root/docs/site/build.sh" "$root" "$out" "$doxygen"
case $? in
  0) ;;
  3) echo "skipped: the site's tools are missing (above)"; exit 77 ;;
  *) echo "FAIL: doxygen reported the errors above"; exit 1 ;;
esac
html=$out/html
failures=0
while IFS= read -r page; do
  while IFS= read -r image; do
    [ -f "$html/$(basename "$image")" ] && continue
    echo "FAIL: ${page#"$root"/} shows $image, which is not in the site (is it in the lab's folder?)"
    failures=$((failures + 1))
  done < <(grep -oE '!\[[^]]*\]\([^)]+\.(png|svg|jpg)\)' "$page" | sed -E 's/.*\(([^)]+)\)$/\1/')
done < <(find "$root/docs" "$root/labs" -name '*.md')
[ "$failures" -eq 0 ] && echo "the site builds clean, with every image its pages show"
[ "$failures" -eq 0 ]
