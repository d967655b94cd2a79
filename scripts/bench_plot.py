#!/usr/bin/env python3
"""What every lab's plot (grader/labs/NN_topic/plot.py) shares: its command line, and the check that
a CSV has the columns the plot reads.

A lab's CSV format is defined once, by its grader (the lab's register_bench() columns); a plot reads
columns by name and lists them in COLUMNS_READ, which a CPU test compares with the grader's.
"""
import csv
import sys


def main(lab, columns_read, plot):
    """plot.py CSV PNG draws the plot; plot.py --check-columns COLUMNS checks the columns it reads."""
    if len(sys.argv) == 3 and sys.argv[1] == "--check-columns":
        columns = sys.argv[2].strip().split(",")
        missing = [c for c in columns_read if c not in columns]
        if missing:
            sys.exit(f"the {lab} plot reads columns the grader does not write: {', '.join(missing)}")
        print(f"{lab}: the plot's {len(columns_read)} columns are all among the grader's {len(columns)}")
        return
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} CSV PNG, or {sys.argv[0]} --check-columns COLUMNS")
    csv_path, png_path = sys.argv[1:]
    with open(csv_path, newline="") as f:
        header = next(csv.reader(f), [])
    missing = [c for c in columns_read if c not in header]
    if missing:
        sys.exit(f"{csv_path} lacks the columns {', '.join(missing)}: it was written by another version of the "
                 f"grader; run ./workbook bench {lab} again")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plot(csv_path, png_path, plt)
