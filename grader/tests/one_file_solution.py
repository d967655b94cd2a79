#!/usr/bin/env python3
"""A reference solution as one file, as a student hands a lab in.

    one_file_solution.py SOLUTION OUT

A submission is one file a lab (labs/NN_topic/<topic>.cu); some reference solutions keep their steps
in headers of their own beside it (solutions/04_sgemm/tiled_steps.cuh ...). Each `#include "x"`
that names a file of the solution's folder is replaced by that file, once, in the order the
compiler would read it; the lab's own headers and the workbook's stay includes, as in a student's
file. The tests that grade the solutions as students' files use it.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
PRAGMA_ONCE = re.compile(r"^\s*#\s*pragma\s+once\b")


def inline(path, folder, seen, out):
    with open(path) as f:
        for line in f:
            if PRAGMA_ONCE.match(line):
                continue
            included = INCLUDE.match(line)
            own = included and os.path.isfile(os.path.join(folder, included.group(1)))
            if not own:
                out.append(line)
                continue
            name = included.group(1)
            if name not in seen:
                seen.add(name)
                out.append(f"// ---- {name}, from the solution's folder ----\n")
                inline(os.path.join(folder, name), folder, seen, out)
                out.append(f"// ---- end of {name} ----\n")


def main():
    if len(sys.argv) != 3:
        print("usage: one_file_solution.py SOLUTION OUT", file=sys.stderr)
        return 2
    solution, destination = sys.argv[1:3]
    folder = os.path.dirname(os.path.abspath(solution))
    lines = []
    inline(solution, folder, {os.path.basename(solution)}, lines)
    os.makedirs(os.path.dirname(os.path.abspath(destination)), exist_ok=True)
    with open(destination, "w") as f:
        f.writelines(lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
