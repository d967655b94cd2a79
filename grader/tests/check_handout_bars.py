#!/usr/bin/env python3
"""Every handout's table of steps states each step's bar as the steps table sets it.

The bars are written once, in each lab's steps table (grader/labs/NN_topic/grader.cpp); the
handout's table restates them for the student (labs/NN_topic/README.md, the rows "| TODO(NN.k) |").
For each step, the numbers the handout's bar column asks for ("≥ 1.76×", "≥ 76.51%") must be
exactly the numbers the lab's grader lists for it (--list-steps: ">= 1.76x", ">= 76.51%").

usage: check_handout_bars.py ROOT BUILD_DIR
"""
import re
import subprocess
import sys
from pathlib import Path


def asked(text, at_least, units):
    """The numbers `text` asks for: each one after an at-least sign and before a unit."""
    return sorted(float(n) for n in re.findall(at_least + r"\s*([0-9]+(?:\.[0-9]+)?)\s*(?:" + units + ")", text))


def main():
    root, build = Path(sys.argv[1]), Path(sys.argv[2])
    failures = 0
    labs = sorted(p.name for p in (root / "labs").iterdir() if re.match(r"[0-9]{2}_", p.name))
    for lab in labs:
        grader = build / "labs" / lab / f"grade_{lab}_starter"
        listed = subprocess.run([str(grader), "--list-steps"], capture_output=True, text=True, check=True).stdout
        bars = {line.split("\t")[0]: line.split("\t")[2] for line in listed.splitlines() if line.count("\t") >= 2}
        handout = (root / "labs" / lab / "README.md").read_text()
        rows = re.findall(r"^\| TODO\(([0-9]{2}\.[0-9]+)\) \|[^|]*\|([^|]*)\|", handout, re.M)
        if sorted(step for step, _ in rows) != sorted(bars):
            print(f"FAIL: {lab}: the handout's table has steps {sorted(s for s, _ in rows)}, the grader {sorted(bars)}")
            failures += 1
        for step, column in rows:
            if step not in bars:
                continue
            stated = asked(column, "≥", "×|%")
            graded = asked(bars[step], ">=", "x|%")
            if stated != graded:
                print(f"FAIL: {lab} {step}: the handout asks {stated}, the grader {graded} ({bars[step]})")
                failures += 1
        print(f"{lab}: {len(rows)} steps' bars compared")
    if failures:
        sys.exit(1)
    print("ok: every handout states its steps' bars as the grader sets them")


main()
