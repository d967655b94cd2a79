#!/usr/bin/env python3
"""The README's scorecard excerpt is what `grade` prints: its table header has the columns the
grader's compact table has (grader/protocol/rows.cpp, print_table), in that order; every row has a
step id, a result the grader writes, and the verdict lines start as the grader's do.

    check_readme_scorecard.py ROOT
"""
import re
import sys

root = sys.argv[1]
readme = open(f"{root}/README.md").read()
report = open(f"{root}/grader/protocol/rows.cpp").read()

blocks = re.findall(r"```text\n(step .*?)```", readme, re.S)
if len(blocks) != 1:
    sys.exit(f"FAIL: README.md has {len(blocks)} scorecard excerpts (a ```text block starting with 'step'), not one")
lines = blocks[0].splitlines()

headers = re.search(r'std::vector<std::string> headers = \{([^}]*)\};', report)
if not headers:
    sys.exit("FAIL: rows.cpp's print_table no longer lists its headers as this test reads them: update the test")
columns = re.findall(r'"([^"]+)"', headers.group(1)) + ["result"]
shown = [c for c in re.split(r"\s{2,}", lines[0].strip())]
if shown != columns:
    sys.exit(f"FAIL: the excerpt's columns {shown} are not the scorecard's {columns}")

failures = 0
for line in lines[2:]:
    if line == "..." or line.startswith(("PASS  ", "FAIL  ")):
        continue
    if not re.match(r"\d{2}\.\d+ ", line) or not line.rstrip().endswith(("PASS", "FAIL", "info")):
        print(f"FAIL: not a scorecard row: {line!r}")
        failures += 1
verdicts = [l for l in lines if l.startswith(("PASS  ", "FAIL  "))]
if not verdicts:
    print("FAIL: the excerpt shows no verdict line")
    failures += 1
for line in verdicts:
    if not re.match(r"(PASS|FAIL)  \d{2}\.\d+ .*: .*measured ", line):
        print(f"FAIL: not a verdict line as the grader prints one: {line!r}")
        failures += 1
if failures:
    sys.exit(1)
print(f"ok: the README's scorecard excerpt has the scorecard's {len(columns)} columns and {len(verdicts)} verdict lines")
