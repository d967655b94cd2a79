#!/usr/bin/env python3
"""Lab 02_memory's plot: its benchmark CSV (written by `./workbook bench 02`) as a PNG.

usage: plot.py CSV PNG
       plot.py --check-columns COLUMNS   (COLUMNS: the grader's --bench-columns; a CPU test runs it)
"""
import csv
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts"))
import bench_plot  # noqa: E402  (the checks and the command line every lab's plot shares)

# The columns this plot reads, by name: a CPU test checks that the grader writes each.
COLUMNS_READ = ["step", "occupancy_percent", "percent_of_memcpy"]

# Lab 02: the seed's point (Volkov, GTC 2010, slides 31-40): occupancy %, % of peak bandwidth.
MEMORY_SEED_GTX480 = ("Volkov, GTX 480: 84% of peak at 4% occupancy", 4.0, 84.0)


def plot(csv_path, png_path, plt):
    """% of cudaMemcpy against occupancy, one curve per step: Volkov's slides redrawn on this GPU."""
    import matplotlib

    curves = defaultdict(list)
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            curves[row["step"]].append((float(row["occupancy_percent"]), float(row["percent_of_memcpy"])))
    if not curves:
        sys.exit(f"{csv_path} has no rows: was any step implemented?")

    fig, ax = plt.subplots(figsize=(9, 5.5))
    for name, points in curves.items():
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=name)
    label, x, y = MEMORY_SEED_GTX480
    ax.scatter([x], [y], marker="*", s=160, color="black", zorder=5, label=label)
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax.axhline(100, color="grey", linestyle="--", linewidth=1)
    ax.set_xlabel("theoretical occupancy (%)")
    ax.set_ylabel("bandwidth (% of cudaMemcpy, same run)")
    ax.set_title("Copy bandwidth against occupancy (after Volkov 2010, slides 31-40)")
    ax.set_ylim(0, 110)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)


if __name__ == "__main__":
    bench_plot.main("02_memory", COLUMNS_READ, plot)
