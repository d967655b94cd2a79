#!/usr/bin/env python3
"""Lab 01_latency's plot: its benchmark CSV (written by `./workbook bench 01`) as a PNG.

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
COLUMNS_READ = ["curve", "ilp", "warps_per_sm", "percent_of_peak", "predicted_percent", "working_set_bytes",
                "cycles_per_load"]

# Lab 01: the seeds. Volkov (GTC 2010, slides 16-22), GTX 480: the threads per SM that reach the
# arithmetic peak at ILP 1, 2, 3 and 4. Kolpakova ("Code GPU with CUDA"), Kepler: load latencies.
LATENCY_SEED_GTX480_THREADS = {1: 576, 2: 320, 3: 256, 4: 192}
LATENCY_SEED_KEPLER_CYCLES = {"L1": 34, "L2": 160, "global": 350}


def plot(csv_path, png_path, plt):
    """Left: % of the FMA peak against warps per SM, one curve per ILP, with Little's law's prediction
    dashed beside each and the GTX 480's points (Volkov's slides 16-22 redrawn). Right: cycles per
    load against the working set, the latency staircase, with Kepler's levels for comparison."""
    curves = defaultdict(list)
    predicted = defaultdict(list)
    staircase = []
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            if row["curve"] == "load latency":
                staircase.append((int(row["working_set_bytes"]), float(row["cycles_per_load"])))
            else:
                ilp, warps = int(row["ilp"]), int(row["warps_per_sm"])
                curves[ilp].append((warps, float(row["percent_of_peak"])))
                predicted[ilp].append((warps, float(row["predicted_percent"])))
    if not curves and not staircase:
        sys.exit(f"{csv_path} has no rows")

    fig, (left, right) = plt.subplots(1, 2, figsize=(15, 5.5))
    for ilp in sorted(curves):
        points = sorted(curves[ilp])
        line, = left.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=f"ILP {ilp}")
        guess = sorted(predicted[ilp])
        left.plot([p[0] for p in guess], [p[1] for p in guess], linestyle="--", color=line.get_color(), alpha=0.6)
    left.scatter([t / 32 for t in LATENCY_SEED_GTX480_THREADS.values()], [100] * len(LATENCY_SEED_GTX480_THREADS),
                 marker="*", s=140, color="black", zorder=5, label="GTX 480: warps per SM at the peak, ILP 1-4 (Volkov)")
    left.set_xlabel("warps per SM (128-thread blocks)")
    left.set_ylabel("FP32 FMA rate (% of the measured peak)")
    left.set_title("Independent FMAs hide latency as warps do (dashed: Little's law)")
    left.set_ylim(0, 110)
    left.grid(True, alpha=0.3)
    left.legend(fontsize=8, loc="lower right")

    if staircase:
        staircase.sort()
        right.plot([b for b, _ in staircase], [c for _, c in staircase], marker="o", color="tab:red", label="this GPU")
        for level, cycles in LATENCY_SEED_KEPLER_CYCLES.items():
            right.axhline(cycles, color="grey", linestyle=":", linewidth=1)
            right.text(staircase[0][0], cycles, f" Kepler {level}: {cycles}", fontsize=7, va="bottom", color="grey")
        right.set_xscale("log", base=2)
        right.set_xlabel("working set (bytes)")
        right.set_ylabel("cycles per dependent load")
        right.set_title("The latency staircase: one thread chasing a random cycle")
        right.grid(True, alpha=0.3)
        right.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)


if __name__ == "__main__":
    bench_plot.main("01_latency", COLUMNS_READ, plot)
