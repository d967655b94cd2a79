#!/usr/bin/env python3
"""Doxygen's input filter for the course's markdown pages (docs/site/Doxyfile.in, FILTER_PATTERNS).

The handouts and guides are written to be read on GitHub as well as on the site, and Doxygen 1.9
reads three things in them differently from GitHub. This filter rewrites each page, as Doxygen reads
it, line for line (so that Doxygen's warnings still name the right line):
  - maths: GitHub renders $...$ and $$...$$; Doxygen wants \\f$...\\f$ and \\f[...\\f];
  - link text in backticks, [`docs/guide.md`](docs/guide.md): Doxygen shows the backticks;
  - links to files the site does not have (a .cu file, a .conf): they would be broken links there,
    so the site shows their text as code instead. A link to the repository's README goes to the
    site's main page, which stands in for it. Links to other pages (.md), images, anchors and the
    web are left alone.
And the README itself, a page at the end of the site, is titled as what it is there: the
repository's README, not a second page called "CUDA optimization workbook".
Code blocks and inline code are never touched. Usage: filter.py FILE (the page on stdout).
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
README = os.path.join(ROOT, "README.md")
page_folder = ROOT  # the folder of the page being filtered, which its relative links start from

FENCE = re.compile(r"^\s*(```|~~~)")
# $$...$$ on one line, or $...$ with no space just inside either dollar (GitHub's rule, which keeps
# "costs $5 and $6" plain text).
DISPLAY_MATHS = re.compile(r"\$\$(.+?)\$\$")
INLINE_MATHS = re.compile(r"(?<![\\$])\$(?![\s$])(.+?)(?<![\s\\])\$(?!\$)")
LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")
SITE_FILES = (".md", ".png", ".svg", ".jpg")


def rewrite_link(match):
    bang, text, target = match.groups()
    if bang:  # an image: Doxygen finds it in IMAGE_PATH
        return match.group(0)
    text = text.replace("`", "")
    path = target.split("#", 1)[0]
    if path and os.path.normpath(os.path.join(page_folder, path)) == README:
        return '\\ref index "' + text + '"'
    if target.startswith(("http://", "https://", "mailto:", "#")) or path.endswith(SITE_FILES):
        return "[" + text + "](" + target + ")"
    return "`" + text + "`"


def rewrite_maths(text):
    text = DISPLAY_MATHS.sub(lambda m: "\\f[" + m.group(1) + "\\f]", text)
    return INLINE_MATHS.sub(lambda m: "\\f$" + m.group(1) + "\\f$", text)


def rewrite_line(line):
    # Links first (their text may hold code); then maths, outside inline code only: split on
    # backtick runs, rewrite the pieces between them.
    pieces = re.split(r"(`+[^`]*`+)", LINK.sub(rewrite_link, line))
    return "".join(piece if i % 2 else rewrite_maths(piece) for i, piece in enumerate(pieces))


def main():
    global page_folder
    page_folder = os.path.dirname(os.path.abspath(sys.argv[1]))
    with open(sys.argv[1], encoding="utf-8") as page:
        lines = page.read().split("\n")
    if os.path.abspath(sys.argv[1]) == README and lines and lines[0].startswith("# "):
        lines[0] = "# The repository's README"
    in_fence = False
    out = []
    for line in lines:
        if FENCE.match(line):
            in_fence = not in_fence
            out.append(line)
        else:
            out.append(line if in_fence else rewrite_line(line))
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
