#!/usr/bin/env python3
"""Lab 04_sgemm's plot: its benchmark CSV (written by `./workbook bench 04`) as a PNG.

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
COLUMNS_READ = ["curve", "m", "n", "k", "cublas_gflop_per_s", "gflop_per_s", "percent_of_cublas", "occupancy_percent"]

# Lab 04: the seed's number and today's public ones, as % of the vendor library of their day.
# Volkov and Demmel, "Benchmarking GPUs to Tune Dense Linear Algebra", SC08 (abstract): their GEMM
# ran "up to 60% faster than the vendor's implementation" (CUBLAS 1.1, on G80 and GT200 GPUs).
SGEMM_SEED = ("V&D 2008\n(CUBLAS 1.1)", 160.0)
# Public hand-written FP32 kernels on an H100, % of cuBLAS at 4096^3 (as quoted by the lab's brief):
# an autotuned cp.async kernel at 45.7 TFLOP/s, and the last step of the well-known 10-step
# warptiling tutorial.
SGEMM_PUBLIC_H100 = [("autotuned cp.async kernel (public): 88%", 88.0), ("10-step warptiling tutorial: 71%", 71.0)]
SGEMM_AUTOTUNED_TFLOPS = 45.7


def plot(csv_path, png_path, plt):
    """GFLOP/s of every step against shape with cuBLAS as the line to beat; beside it, at 4096^3,
    Volkov's curves: % of cuBLAS climbing while occupancy falls, step by step."""
    curves = defaultdict(dict)
    ceiling = {}
    shapes = []
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            shape = (int(row["m"]), int(row["n"]), int(row["k"]))
            if shape not in shapes:
                shapes.append(shape)
            curves[row["curve"]][shape] = row
            ceiling[shape] = float(row["cublas_gflop_per_s"])
    if not curves:
        sys.exit(f"{csv_path} has no rows: was any step implemented?")

    fig, (left, right) = plt.subplots(1, 2, figsize=(15, 7.5))
    x_of = {shape: i for i, shape in enumerate(shapes)}
    left.plot(range(len(shapes)), [ceiling[s] / 1e3 for s in shapes], color="black", linestyle="--", linewidth=2,
              label="cuBLAS SGEMM (the line to beat)")
    colors = plt.get_cmap("tab20").colors  # a colour of its own for each of up to 20 curves
    for index, (name, points) in enumerate(curves.items()):
        measured = [s for s in shapes if s in points]
        left.plot([x_of[s] for s in measured], [float(points[s]["gflop_per_s"]) / 1e3 for s in measured], marker="o",
                  color=colors[index % len(colors)], label=name)
    if (4096, 4096, 4096) in x_of:
        left.scatter([x_of[(4096, 4096, 4096)]], [SGEMM_AUTOTUNED_TFLOPS], marker="*", s=160, color="black", zorder=5,
                     label=f"public autotuned cp.async kernel, 4096^3 ({SGEMM_AUTOTUNED_TFLOPS} TFLOP/s)")
    left.set_xticks(range(len(shapes)))
    left.set_xticklabels([f"{m}^3" if m == n == k else f"{m}x{n}x{k}" for m, n, k in shapes], rotation=20, fontsize=8)
    left.set_ylabel("TFLOP/s (FP32 FMA, no tensor cores)")
    left.set_title("SGEMM throughput per shape")
    left.grid(True, alpha=0.3)
    left.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3)

    at = (4096, 4096, 4096)
    steps = [name for name, points in curves.items() if at in points and not name.startswith("baseline")]
    percent = [float(curves[name][at]["percent_of_cublas"]) for name in steps]
    occupancy = [float(curves[name][at]["occupancy_percent"]) for name in steps]
    x = list(range(len(steps)))
    right.bar(x, percent, color="tab:blue", label="this GPU, % of cuBLAS")
    # The seed, beside the steps: a hand-written GEMM against the vendor library of 2008.
    seed_label, seed_percent = SGEMM_SEED
    right.bar([len(steps)], [seed_percent], color="grey", label="the seed, % of the vendor library then")
    for label, level in SGEMM_PUBLIC_H100:
        right.axhline(level, color="black", linestyle=":", linewidth=1)
        right.text(-0.4, level + 1.5, label, fontsize=7)
    right.set_ylabel("% of cuBLAS at 4096^3", color="tab:blue")
    right.set_ylim(0, 175)
    right.set_xticks(x + [len(steps)])
    right.set_xticklabels([name.split(" ")[0] for name in steps] + [seed_label], fontsize=7, rotation=30)
    twin = right.twinx()
    twin.plot(x, occupancy, color="tab:red", marker="s", label="theoretical occupancy")
    twin.set_ylabel("theoretical occupancy (%)", color="tab:red")
    twin.set_ylim(0, 175)
    right.set_title("Volkov's curves on this GPU: speed up, occupancy down; the seed and public kernels beside them",
                    fontsize=10)
    right.grid(True, axis="y", alpha=0.3)
    right.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)


if __name__ == "__main__":
    bench_plot.main("04_sgemm", COLUMNS_READ, plot)
