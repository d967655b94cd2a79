#!/usr/bin/env python3
"""Lab 03_transpose's plot: its benchmark CSV (written by `./workbook bench 03`) as a PNG.

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
COLUMNS_READ = ["curve", "rows", "cols", "gb_per_s", "percent_of_memcpy", "memcpy_gb_per_s"]

# Lab 03: the seed's table (Ruetsch and Micikevicius, "Optimizing Matrix Transpose in CUDA", 2009,
# GTX 280): GB/s of each kernel.
TRANSPOSE_SEED_GTX280 = {"naive": 5.3, "tiled": 75.1, "padded": 93.4, "copy": 112.4}


def plot(csv_path, png_path, plt):
    """GB/s against matrix size for every curve, cudaMemcpy as the ceiling; beside it, the fraction
    of the copy each kernel reaches at 8192 x 8192 on this GPU and on the seed's GTX 280."""
    curves = defaultdict(dict)
    ceiling = {}
    shapes = []  # in the order the bench measured them: by size, odd shapes beside even ones
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            shape = (int(row["rows"]), int(row["cols"]))
            if shape not in shapes:
                shapes.append(shape)
            curves[row["curve"]][shape] = (float(row["gb_per_s"]), float(row["percent_of_memcpy"]))
            ceiling[shape] = float(row["memcpy_gb_per_s"])
    if not curves:
        sys.exit(f"{csv_path} has no rows: was any step implemented?")

    fig, (left, right) = plt.subplots(1, 2, figsize=(15, 6), gridspec_kw={"width_ratios": [2, 1]})
    x_of = {shape: i for i, shape in enumerate(shapes)}
    left.plot(range(len(shapes)), [ceiling[s] for s in shapes], color="black", linestyle="--", linewidth=2,
              label="cudaMemcpy of the same bytes (ceiling)")
    for name, points in curves.items():
        measured = [s for s in shapes if s in points]
        style = ":" if name.startswith("diagnostic") else "-"
        left.plot([x_of[s] for s in measured], [points[s][0] for s in measured], marker="o", linestyle=style, label=name)
    left.set_xticks(range(len(shapes)))
    left.set_xticklabels([f"{r}^2" if r == c else f"{r}x{c}" for r, c in shapes], rotation=30, fontsize=8)
    left.set_xlabel("matrix shape (rows x cols)")
    left.set_ylabel("GB/s (bytes read + written)")
    left.set_title("Transpose bandwidth per shape, cudaMemcpy as the ceiling")
    left.grid(True, alpha=0.3)
    left.legend(fontsize=7, loc="lower right")

    # This GPU at 8192 x 8192 beside the seed's GTX 280, each as a percentage of its own copy.
    at_8192 = {name: points[(8192, 8192)][1] for name, points in curves.items() if (8192, 8192) in points}
    pick = [("naive", "baseline"), ("tiled", "03.1"), ("padded", "03.2"), ("copy", None)]
    labels, h100, gtx = [], [], []
    for seed_name, prefix in pick:
        labels.append(seed_name)
        gtx.append(100.0 * TRANSPOSE_SEED_GTX280[seed_name] / TRANSPOSE_SEED_GTX280["copy"])
        match = [v for k, v in at_8192.items() if prefix and k.startswith(prefix)]
        h100.append(match[0] if match else (100.0 if prefix is None else 0.0))
    final = [v for k, v in at_8192.items() if k.startswith("03.4")]
    if final:
        labels.insert(3, "03.4")
        h100.insert(3, final[0])
        gtx.insert(3, 0.0)
    x = range(len(labels))
    right.bar([i - 0.2 for i in x], gtx, width=0.4, label="GTX 280, the seed table (5.3, 75.1, 93.4, 112.4 GB/s)")
    right.bar([i + 0.2 for i in x], h100, width=0.4, label="this GPU, 8192^2")
    right.set_xticks(list(x))
    right.set_xticklabels(labels)
    right.set_ylabel("% of the same GPU's copy")
    right.set_ylim(0, 110)
    right.set_title("Then and now")
    right.grid(True, axis="y", alpha=0.3)
    right.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)


if __name__ == "__main__":
    bench_plot.main("03_transpose", COLUMNS_READ, plot)
