#!/usr/bin/env python3
"""The highest share of the device's limits each step's candidate and reference reached, over the
grade logs given (results/grade.log of several gradings): how far every honest kernel, and every
vendor library, stayed under the [ceiling].

    python3 scripts/ceiling_margins.py LOG [LOG ...]

Each graded measurement logs a line "[workbook] share of the device's limits ([ceiling]): candidate
80.1% of memory; cudaMemcpy 79.9% of memory" (grade_step.h). A share above 100% would be a
[ceiling] failure of that kernel (or, for a reference, a limit that is wrong)."""
import re
import sys

SHARE = re.compile(r"\[workbook\] share of the device's limits \(\[ceiling\]\): candidate (.*?); (.*?) (\d.*)$")
PART = re.compile(r"([\d.]+)% of (memory|FP32)")


def main(paths):
    highest = {}  # (step, who, limit) -> (share, runs seen)
    for path in paths:
        step = "?"
        for line in open(path, errors="replace"):
            started = re.match(r"^\[workbook\] (\d\d\.\d+): ", line)
            if started:
                step = started.group(1)
            found = SHARE.match(line.strip())
            if not found:
                continue
            candidate, reference, reference_shares = found.groups()
            for who, shares in (("candidate", candidate), (reference, reference_shares)):
                for value, limit in PART.findall(shares):
                    key = (step, who, limit)
                    highest[key] = max(highest.get(key, 0.0), float(value))
    if not highest:
        sys.exit("no share lines found: grade with a grader that logs them (grade_step.h)")
    worst = max(highest.values())
    print(f"{'step':6} {'who':24} {'limit':7} highest share")
    for (step, who, limit), share in sorted(highest.items()):
        print(f"{step:6} {who:24} {limit:7} {share:6.1f}%")
    print(f"highest of all: {worst:.1f}% ({'under' if worst < 100 else 'ABOVE'} every limit) over {len(paths)} log(s)")
    return 0 if worst < 100 else 1


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
