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
  - a page of the site named in backticks (`docs/integrity.md`) becomes a link to it, since the site
    links no word by its name alone (Doxyfile.in: two labs' given headers share names).
Code blocks are never touched, nor any other inline code. Usage: filter.py FILE (the page on stdout).
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
README = os.path.join(ROOT, "README.md")
MAIN_PAGE = os.path.join(ROOT, "docs", "site", "index.md")
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


CODE_PAGE = re.compile(r"^`([A-Za-z0-9_./-]+\.md)`$")
SITE_PAGE_FOLDERS = ("docs", "labs")


def rewrite_code(span):
    """A page of the site named in backticks (`docs/integrity.md`) becomes a link to that page (the
    site does not link words by their names: Doxygen's AUTOLINK_SUPPORT is off); other code stays."""
    found = CODE_PAGE.match(span)
    if not found:
        return span
    for base in (page_folder, ROOT):
        page = os.path.normpath(os.path.join(base, found.group(1)))
        inside = os.path.relpath(page, ROOT).split(os.sep)
        if os.path.isfile(page) and (inside[0] in SITE_PAGE_FOLDERS or page == README):
            if page in (README, MAIN_PAGE):  # the site's main page stands for both
                return '\\ref index "' + found.group(1) + '"'
            return "[" + found.group(1) + "](" + os.path.relpath(page, page_folder) + ")"
    return span


def rewrite_line(line):
    # Links first (their text may hold code); then, outside inline code, maths, and inside it a
    # page's path: split on backtick runs, rewrite each piece as what it is.
    pieces = re.split(r"(`+[^`]*`+)", LINK.sub(rewrite_link, line))
    return "".join(rewrite_code(piece) if i % 2 else rewrite_maths(piece) for i, piece in enumerate(pieces))


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
