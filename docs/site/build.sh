#!/usr/bin/env bash
# Builds the course site: docs/site/build.sh ROOT OUT_DIR [DOXYGEN]. Writes OUT_DIR/Doxyfile from
# Doxyfile.in, runs doxygen (the site goes to OUT_DIR/html), and copies the part of Debian's
# libjs-mathjax the site uses into OUT_DIR/html/mathjax, so that it works offline. Needs doxygen,
# doxygen-awesome-css and libjs-mathjax (./workbook docs installs them); no CUDA, no build.
set -euo pipefail
root=$1 out=$2 doxygen=${3:-doxygen}
awesome=/usr/share/doxygen-awesome-css
mathjax=/usr/share/javascript/mathjax
missing=()
command -v "$doxygen" >/dev/null 2>&1 || missing+=(doxygen)
[ -f "$awesome/doxygen-awesome.css" ] || missing+=(doxygen-awesome-css)
[ -f "$mathjax/MathJax.js" ] || missing+=(libjs-mathjax)
if [ ${#missing[@]} -gt 0 ]; then
  echo "the course site needs ${missing[*]}: sudo apt-get install ${missing[*]}" >&2
  exit 3
fi
mkdir -p "$out"
# The labs in order: their handouts (pages) and their folders (interfaces and plots).
handouts="" folders=""
for lab in "$root"/labs/[0-9][0-9]_*/; do
  handouts+=" \"${lab}README.md\""
  folders+=" \"${lab%/}\""
done
# The instructors' pages (their guide, the design), in an instructor's checkout (a student's copy has
# neither: ./workbook handout).
instructor_pages=""
[ -f "$root/docs/instructors.md" ] && instructor_pages="\"$root/docs/instructors.md\""
[ -f "$root/docs/design.md" ] && instructor_pages="$instructor_pages \"$root/docs/design.md\""
sed -e "s#@ROOT@#$root#g" -e "s#@OUT@#$out#g" -e "s#@AWESOME@#$awesome#g" \
    -e "s#@LAB_HANDOUTS@#$handouts#g" -e "s#@LAB_FOLDERS@#$folders#g" -e "s#@INSTRUCTOR_PAGES@#$instructor_pages#g" \
    "$root/docs/site/Doxyfile.in" > "$out/Doxyfile"
rm -rf "$out/html"
(cd "$root" && "$doxygen" "$out/Doxyfile")
# Doxygen writes a "File Reference" page for each markdown file besides its page: empty, and linked
# from nowhere (the test of the site fails a page that links one). They are not part of the site.
rm -f "$out/html/"*_8md.html
# The main page's title is the project's name, which the top of every page shows already: said once
# there, and once in the window's title, not twice in each.
name=$(sed -n 's/^PROJECT_NAME *= *"\(.*\)"$/\1/p' "$root/docs/site/Doxyfile.in")
sed -i -e "s#<title>$name: $name</title>#<title>$name</title>#" \
       -e "s#<div class=\"headertitle\"><div class=\"title\">$name *</div></div>##" "$out/html/index.html"
# What the pages load of MathJax 2: TeX input, the HTML-CSS output with its TeX web fonts, and
# the tex2jax extension (Doxygen's MATHJAX_FORMAT HTML-CSS). The rest of the package (other
# outputs and fonts, unpacked sources, tests: 50 MB) stays out of the site.
site_mathjax="$out/html/mathjax"
mkdir -p "$site_mathjax/jax/input" "$site_mathjax/jax/output" "$site_mathjax/fonts/HTML-CSS/TeX"
cp -r "$mathjax/MathJax.js" "$mathjax/extensions" "$site_mathjax/"
cp -r "$mathjax/jax/element" "$site_mathjax/jax/"
cp -r "$mathjax/jax/input/TeX" "$site_mathjax/jax/input/"
cp -r "$mathjax/jax/output/HTML-CSS" "$site_mathjax/jax/output/"
cp -r "$mathjax/fonts/HTML-CSS/TeX/woff" "$site_mathjax/fonts/HTML-CSS/TeX/"
