#!/usr/bin/env python3
"""Lab 06_reduce_scan's plot: its benchmark CSV (written by `./workbook bench 06`) as a PNG.

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
COLUMNS_READ = ["curve", "operation", "n", "gb_per_s", "cub_gb_per_s", "copy_gb_per_s"]

# Lab 06: Harris's seven reduction kernels on a G80 (2007), GB/s for 2^22 ints, and the G80's peak.
HARRIS_G80_GB_PER_S = [2.08, 4.85, 9.74, 17.38, 31.29, 43.99, 62.67]
HARRIS_G80_PEAK = 86.4


def plot(csv_path, png_path, plt):
    """GB/s against n for every sum and every scan, CUB and the device's copy as the lines to beat;
    beside them, Harris's G80 ladder and the same ladder on this GPU, each as % of its peak (the
    G80's 86.4 GB/s; this GPU's measured copy)."""
    curves = {"sum": defaultdict(dict), "scan": defaultdict(dict)}
    cub = {"sum": {}, "scan": {}}
    copy_gb_per_s = 0.0
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            operation, n = row["operation"], int(row["n"])
            curves[operation][row["curve"]][n] = float(row["gb_per_s"])
            cub[operation][n] = float(row["cub_gb_per_s"])
            copy_gb_per_s = float(row["copy_gb_per_s"])
    if not any(curves[o] for o in curves):
        sys.exit(f"{csv_path} has no rows: was any step implemented?")

    fig, axes = plt.subplots(1, 3, figsize=(18, 5.5), gridspec_kw={"width_ratios": [2, 2, 1]})
    for ax, operation in zip(axes[:2], ("sum", "scan")):
        if cub[operation]:
            ns = sorted(cub[operation])
            ax.plot(ns, [cub[operation][n] for n in ns], color="black", linestyle="--", linewidth=2, label="CUB (same run)")
            ax.axhline(copy_gb_per_s, color="grey", linestyle=":", label="device copy (read + write)")
        for name, points in curves[operation].items():
            ns = sorted(points)
            ax.plot(ns, [points[n] for n in ns], marker="o", label=name)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("n (ints)")
        ax.set_ylabel("GB/s (bytes read" + (" + written)" if operation == "scan" else ")"))
        ax.set_title(("Reduction" if operation == "sum" else "Exclusive scan") + ": bandwidth against n")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
    # Harris's kernels 1 to 7 beside this lab's baseline (his kernel 1) and 06.1 to 06.6, at the
    # largest n measured, as % of each GPU's peak.
    right = axes[2]
    sums = curves["sum"]
    largest = max((n for points in sums.values() for n in points), default=0)
    ladder = [name for name in sums if name.startswith("baseline")] + sorted(
        (name for name in sums if name.startswith("06.")), key=lambda name: int(name.split()[0].split(".")[1]))
    here = [100 * sums[name].get(largest, 0) / copy_gb_per_s if copy_gb_per_s else 0 for name in ladder]
    kernels = range(1, 8)
    right.bar([k - 0.2 for k in kernels], [100 * g / HARRIS_G80_PEAK for g in HARRIS_G80_GB_PER_S], width=0.4,
              color="grey", label="G80, 2^22 ints (Harris 2007)")
    right.bar([k + 0.2 for k in kernels][:len(here)], here, width=0.4, color="tab:green",
              label=f"this GPU, 2^{largest.bit_length() - 1} ints")
    right.set_xticks(list(kernels))
    right.set_xlabel("Harris's kernel (here: baseline, 06.1 to 06.6)")
    right.set_ylabel("% of peak bandwidth")
    right.set_title("The same ladder, then and now")
    right.legend(fontsize=7, loc="upper left")
    right.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)


if __name__ == "__main__":
    bench_plot.main("06_reduce_scan", COLUMNS_READ, plot)
