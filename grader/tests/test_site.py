#!/usr/bin/env python3
"""The course site, looked at as a reader would (docs/site/): built, then its reader's pages rendered
in a headless Chromium at a 1280 x 900 window, the main page, every lab's handout, the instructors'
guide and the repository's README, and what a reader needs checked on each: the six labs in the
contents tree, in order; every image loaded and inside the page's width; on each handout, every
formula typeset by MathJax (served by the site itself), none shown as an error. Over the whole
site: no link to a file the site lacks, no literal backticks in a link's text, nothing fetched from
the network, no empty file page.

usage: test_site.py ROOT [CHROMIUM]   (exit 77: skipped, where the tools are missing)
"""
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

ROOT = os.path.abspath(sys.argv[1])
CHROMIUM = sys.argv[2] if len(sys.argv) > 2 else (shutil.which("chromium") or shutil.which("chromium-browser") or "")
# Every lab folder's handout, in the contents tree as "Lab NN...": a lab added without its line in
# the main page (docs/site/index.md) fails here.
LABS = ["Lab " + name[:2] for name in sorted(os.listdir(os.path.join(ROOT, "labs"))) if re.match(r"\d\d_", name)]
# Each lab's namespace as Doxygen spells it in a page's name (memory_lab: namespacememory__lab.html).
LAB_NAMESPACES = {}
for _name in os.listdir(os.path.join(ROOT, "labs")):
    if re.match(r"\d\d_", _name):
        _header = os.path.join(ROOT, "labs", _name, _name[3:] + ".h")
        if os.path.exists(_header):
            _found = re.search(r"^namespace ([a-z_]+)_lab \{", open(_header, encoding="utf-8").read(), re.M)
            if _found:
                LAB_NAMESPACES[_name[:2]] = _found.group(1).replace("_", "__")
PAGES = {  # page: does it have formulas
    "index.html": False,
    "md_README.html": False,
}
if os.path.exists(os.path.join(ROOT, "docs", "instructors.md")):  # an instructor's checkout: a student's copy has none
    PAGES["md_docs_instructors.html"] = False
    PAGES["md_docs_design.html"] = False
# Every handout, each with the formulas a student reads (a tolerance is a formula: a macro MathJax
# does not know shows as an error in the very rule a result is checked against).
for _name in sorted(os.listdir(os.path.join(ROOT, "labs"))):
    _handout = os.path.join(ROOT, "labs", _name, "README.md")
    if re.match(r"\d\d_", _name) and os.path.exists(_handout):
        PAGES["md_labs_" + _name + "_README.html"] = "$" in open(_handout, encoding="utf-8").read()

# Appended to each page checked (in a copy of the site): once the page's scripts and MathJax are
# done, it writes what the page shows into <pre id="site-probe"> as JSON, which --dump-dom prints.
PROBE = """
<script>
function siteProbe() {
  var report = {tree: [], images: [], formulas: 0, formula_errors: 0, page_width: document.documentElement.clientWidth};
  var side = document.querySelector('#nav-tree');
  var sideRight = side ? side.getBoundingClientRect().right : 0;
  report.cut = [];
  document.querySelectorAll('#nav-tree a').forEach(function (a) {
    report.tree.push(a.textContent.trim());
    // A title that runs past the side bar's edge is cut off there (or hidden behind a scroll bar).
    if (a.textContent.trim() && a.getBoundingClientRect().right > sideRight + 1) report.cut.push(a.textContent.trim());
  });
  document.querySelectorAll('div.contents img').forEach(function (img) {
    var box = img.getBoundingClientRect();
    report.images.push({src: img.getAttribute('src'), loaded: img.complete && img.naturalWidth > 0,
                        left: box.left, right: box.right, width: box.width});
  });
  report.formulas = document.querySelectorAll('div.contents .MathJax, div.contents .MathJax_Display').length;
  var contents = document.querySelector('div.contents');
  // A formula MathJax could not read: its processing error, or a TeX error (an undefined macro,
  // shown in red in place of the formula).
  report.formula_errors = ((contents ? contents.textContent : '').match(/Math Processing Error|Undefined control sequence/g) || []).length +
                          document.querySelectorAll('div.contents .merror, div.contents .noError').length;
  var out = document.createElement('pre');
  out.id = 'site-probe';
  out.textContent = JSON.stringify(report);
  document.body.appendChild(out);
}
window.addEventListener('load', function () {
  setTimeout(function () {
    if (window.MathJax && MathJax.Hub) MathJax.Hub.Queue(siteProbe); else siteProbe();
  }, 500);
});
</script>
"""


class Links(html.parser.HTMLParser):
    """Every local href and src of a page, and the text of each link."""

    def __init__(self):
        super().__init__()
        self.targets, self.link_texts, self._in_link = [], [], False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("href", "src"):
            if attrs.get(name):
                self.targets.append(attrs[name])
        if tag == "a":
            self._in_link, self._text = True, ""

    def handle_data(self, data):
        if self._in_link:
            self._text += data

    def handle_endtag(self, tag):
        if tag == "a" and self._in_link:
            self.link_texts.append(self._text)
            self._in_link = False


def static_failures(site):
    failures = []
    with open(os.path.join(site, "index.html"), encoding="utf-8") as main_page:
        text = main_page.read()
    window_title = re.search(r"<title>(.*?)</title>", text).group(1)
    if window_title.count(":") and len(set(part.strip() for part in window_title.split(":"))) == 1:
        failures.append(f"index.html: its title repeats itself: {window_title!r}")
    if re.search(r'<div class="title">' + re.escape(window_title.split(":")[0].strip()) + r"\s*</div>", text):
        failures.append("index.html: the main page's heading repeats the project's name above it")
    empty = [name for name in os.listdir(site) if name.endswith("_8md.html")]
    if empty:
        failures.append(f"the site has {len(empty)} empty file pages of its markdown files: {sorted(empty)[:3]}...")
    for name in sorted(os.listdir(site)):
        if not name.endswith(".html"):
            continue
        parser = Links()
        with open(os.path.join(site, name), encoding="utf-8") as page:
            parser.feed(page.read())
        for target in parser.targets:
            parts = urllib.parse.urlsplit(target)
            if parts.scheme in ("http", "https"):
                if "doxygen" not in parts.netloc:  # Doxygen's own footer link is the one allowed
                    failures.append(f"{name} links to the network: {target}")
                continue
            if parts.scheme or not parts.path:
                continue  # mailto:, javascript:, an anchor on the same page
            if not os.path.exists(os.path.join(site, urllib.parse.unquote(parts.path))):
                failures.append(f"{name} links to {target}, which the site does not have")
        for text in parser.link_texts:
            if "`" in text:
                failures.append(f"{name} shows backticks in a link's text: {text!r}")
        reader_page = name == "index.html" or name.startswith("md_")
        lab = re.match(r"md_labs_(\d\d)_", name)
        for target in parser.targets:
            page = urllib.parse.urlsplit(target).path
            # A markdown file's own "File Reference" page is empty: a reader sent there finds nothing.
            if reader_page and page.endswith("_8md.html"):
                failures.append(f"{name} links to {target}, an empty file page, not the page it names")
            # A handout's code names its own lab's functions: a link into another lab's namespace is
            # the same name in the wrong lab (each lab's given.cuh has a validate()).
            linked = re.match(r"namespace([a-z_]+)__lab\.html", page)
            if lab and linked and LAB_NAMESPACES.get(lab.group(1)) != linked.group(1):
                failures.append(f"{name} links to {target}: a function of another lab's namespace")
    return failures


def rendered(site, page):
    """What Chromium shows of `page`, as the probe reports it."""
    with open(os.path.join(site, page), encoding="utf-8") as f:
        text = f.read()
    with open(os.path.join(site, page), "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", PROBE + "</body>"))
    with tempfile.TemporaryDirectory() as profile:
        dom = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + profile,
             "--window-size=1280,900", "--virtual-time-budget=15000", "--dump-dom",
             "file://" + os.path.join(site, page)],
            capture_output=True, text=True, timeout=120).stdout
    found = re.search(r'<pre id="site-probe">(.*?)</pre>', dom, re.S)
    if not found:
        return None
    return json.loads(html.unescape(found.group(1)))


def page_failures(page, report, has_formulas):
    if report is None:
        return [f"{page}: the page did not finish rendering in Chromium (no probe report)"]
    failures = []
    tree = report["tree"]
    positions = [next((i for i, entry in enumerate(tree) if entry.startswith(lab)), -1) for lab in LABS]
    if -1 in positions:
        failures.append(f"{page}: the contents tree lacks {[lab for lab, p in zip(LABS, positions) if p < 0]}: {tree}")
    elif positions != sorted(positions):
        failures.append(f"{page}: the contents tree has the labs out of order: {tree}")
    if "API reference" in tree and positions and -1 not in positions and tree.index("API reference") < max(positions):
        failures.append(f"{page}: the API reference comes before the labs in the contents tree")
    if report.get("cut"):
        failures.append(f"{page}: titles cut off at the contents tree's edge: {report['cut']}")
    for image in report["images"]:
        if not image["loaded"]:
            failures.append(f"{page}: image {image['src']} did not load")
        elif image["right"] > report["page_width"] + 1 or image["left"] < 0:
            failures.append(f"{page}: image {image['src']} runs outside the page ({image['left']:.0f} to "
                            f"{image['right']:.0f} px, the page {report['page_width']} px wide)")
    if has_formulas and report["formulas"] == 0:
        failures.append(f"{page}: no formula was typeset (is MathJax in the site's mathjax/ folder?)")
    if report["formula_errors"]:
        failures.append(f"{page}: MathJax could not typeset {report['formula_errors']} formulas (a processing error, or a macro it does not know)")
    return failures


def main():
    if not CHROMIUM or not shutil.which(CHROMIUM):
        print("skipped: no chromium to render the site with (sudo apt-get install chromium)")
        return 77
    with tempfile.TemporaryDirectory() as out:
        build = subprocess.run(["bash", os.path.join(ROOT, "docs/site/build.sh"), ROOT, out], capture_output=True, text=True)
        if build.returncode == 3:
            print("skipped: " + build.stderr.strip())
            return 77
        if build.returncode != 0:
            print(build.stdout + build.stderr + "FAIL: the site did not build")
            return 1
        site = os.path.join(out, "html")
        failures = static_failures(site)
        for page, has_formulas in PAGES.items():
            report = rendered(site, page)
            failures += page_failures(page, report, has_formulas)
            if report is not None:
                print(f"{page}: {len(report['tree'])} entries in the contents tree, {len(report['images'])} images, "
                      f"{report['formulas']} formulas typeset, the page {report['page_width']} px wide")
    for failure in failures:
        print("FAIL: " + failure)
    if not failures:
        print("the site reads as a course book: labs in the contents in order, images inside the page, formulas typeset, no broken link")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
