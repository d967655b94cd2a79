#!/usr/bin/env python3
"""Writes, or checks, the table of bars in each lab's handout: every step's bar on every GPU the
course has bars for, as the lab's grader lists them.

A step's bar is set once, in its lab's steps table (grader/labs/NN_topic/grader.cpp: the built-in
bar, set on an H100), and for another GPU in its bars profile (classroom/bars/<gpu>.bars, written
by ./workbook calibrate), which grading uses on that GPU. A student reads them in labs/NN_topic/
README.md, between the two marker lines below; that block is written from the graders'
`--list-steps` (with `--bars=PROFILE` for each profile), never by hand, so it cannot drift.

usage: bar_tables.py ROOT BUILD_DIR [--write]
  without --write: exit 1, naming the lab, where a handout's block is not what the graders list
  with --write:    rewrite each handout's block (a lab without one gets it after its steps table)
"""
import re
import subprocess
import sys
from pathlib import Path

BEGIN = "<!-- bars: written by scripts/bar_tables.py from the graders' steps tables and classroom/bars/; do not edit -->"
END = "<!-- bars: end -->"


def listed(grader, profile=None):
    """{step: (title, bar)} as the grader lists them, with PROFILE's bars where given."""
    command = [str(grader), "--list-steps"] + ([f"--bars={profile}"] if profile else [])
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    steps = {}
    for line in out.splitlines():
        fields = line.split("\t")
        if len(fields) >= 3:
            steps[fields[0]] = (fields[1], fields[2])
    return steps


def as_text(bar):
    """The grader's ASCII bar as the handouts write one: >= as ≥, 1.76x as 1.76×, 4096^3 as 4096³."""
    bar = bar.replace(">=", "≥").replace("<=", "≤")
    bar = re.sub(r"([0-9])x\b", r"\1×", bar)
    return bar.replace("^3", "³").replace("|", "\\|")


def gpu_of(profile):
    """The GPU a profile is for, from its first line ("# Bars for NVIDIA H200, ...")."""
    first = profile.read_text().splitlines()[0]
    found = re.match(r"# Bars for ([^,(]+)", first)
    return found.group(1).strip() if found else profile.stem


def block(root, build, lab):
    grader = build / "labs" / lab / f"grade_{lab}_starter"
    profiles = sorted((root / "classroom" / "bars").glob("*.bars"))
    built_in = listed(grader)
    columns = [listed(grader, p) for p in profiles]
    head = "| step | bar as built in (set on an H100) | " + " | ".join(
        f"bar on an {gpu_of(p)} (`classroom/bars/{p.name}`)" for p in profiles) + " |"
    rule = "| --- | --- | " + " | ".join("---" for _ in profiles) + " |"
    rows = []
    for step, (title, bar) in built_in.items():
        others = [as_text(c[step][1]) if step in c else "as built in" for c in columns]
        rows.append(f"| {step} {title} | {as_text(bar)} | " + " | ".join(others) + " |")
    return "\n".join([BEGIN, head, rule] + rows + [END])


def with_block(text, new):
    """TEXT with its bars block replaced by NEW, or NEW put after the steps table (rows "| TODO(")."""
    if BEGIN in text:
        return re.sub(re.escape(BEGIN) + r".*?" + re.escape(END), lambda _: new, text, count=1, flags=re.S)
    lines = text.split("\n")
    last = max(i for i, line in enumerate(lines) if line.startswith("| TODO("))
    intro = "Every bar on every GPU the course has bars for, as the graders list them:"
    return "\n".join(lines[: last + 1] + ["", intro, "", new] + lines[last + 1:])


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--write"):
        sys.exit(__doc__)
    root, build, write = Path(sys.argv[1]), Path(sys.argv[2]), len(sys.argv) == 4
    labs = sorted(p.name for p in (root / "labs").iterdir() if re.match(r"[0-9]{2}_", p.name))
    stale = []
    for lab in labs:
        handout = root / "labs" / lab / "README.md"
        text = handout.read_text()
        new = block(root, build, lab)
        if write:
            handout.write_text(with_block(text, new))
            print(f"{lab}: bars written into {handout.relative_to(root)}")
        elif BEGIN not in text or with_block(text, new) != text:
            stale.append(lab)
            print(f"FAIL: {lab}: labs/{lab}/README.md's table of bars is not what the graders list; "
                  f"write it with: python3 scripts/bar_tables.py . {build} --write")
    if stale:
        sys.exit(1)
    if not write:
        print(f"ok: {len(labs)} handouts' tables of bars are the graders' bars on every profile")


main()
