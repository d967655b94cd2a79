#!/usr/bin/env bash
# The README's pictures of the course site (docs/site-*.png), taken as a reader sees the site: built
# fresh, rendered by a headless Chromium in a 1280-pixel-wide window. Run it after changing the
# site's look: docs/site/screenshots.sh (needs what build.sh needs, and chromium).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$root/docs/site/build.sh" "$root" "$out" >/dev/null
shot() {  # PAGE HEIGHT PICTURE
  chromium --headless --no-sandbox --disable-gpu --user-data-dir="$out/profile" --hide-scrollbars \
    --window-size=1280,"$2" --virtual-time-budget=15000 --screenshot="$root/docs/$3" "file://$out/html/$1" 2>/dev/null
}
shot index.html 1000 site-course.png
shot md_labs_01_latency_README.html 1400 site-handout.png
shot md_docs_instructors.html 1000 site-instructors.png
ls -l "$root"/docs/site-*.png
