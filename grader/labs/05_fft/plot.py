#!/usr/bin/env python3
"""Lab 05_fft's plot: its benchmark CSV (written by `./workbook bench 05`) as a PNG.

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
COLUMNS_READ = ["curve", "batch", "source", "gflop_per_s", "gb_per_s", "cufft_gb_per_s", "occupancy_percent",
                "outputs_per_thread"]

# Lab 05: Volkov 2010, slides 71-73: CUFFT 2.2 (2 outputs per thread) and 2.3 (16 outputs per
# thread), 1024-point FFTs on a G80: GFLOP/s and occupancy.
VOLKOV_FFT_G80 = [(2, 45.0, 33.0), (16, 93.0, 17.0)]


def plot(csv_path, png_path, plt):
    """GFLOP/s and GB/s of every step against the batch, cuFFT as the line to beat; beside them, at
    the largest batch, Volkov's slide 73 redrawn: GFLOP/s up and occupancy down as outputs per
    thread grow, with the G80's two points."""
    curves = defaultdict(dict)
    cufft = {}
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            if row["source"] != "device memory":  # the in-L2 rows are the table's, not the curves'
                continue
            batch = int(row["batch"])
            curves[row["curve"]][batch] = row
            cufft[batch] = float(row["cufft_gb_per_s"])
    if not curves:
        sys.exit(f"{csv_path} has no rows: was any step implemented?")
    batches = sorted(cufft)
    fig, (rate, bandwidth, ladder) = plt.subplots(1, 3, figsize=(18, 6.5))
    colors = plt.get_cmap("tab10").colors
    flops_per_byte = {}
    for index, (name, points) in enumerate(curves.items()):
        measured = sorted(points)
        rate.plot(measured, [float(points[b]["gflop_per_s"]) for b in measured], marker="o", color=colors[index % 10],
                  label=name)
        bandwidth.plot(measured, [float(points[b]["gb_per_s"]) for b in measured], marker="o", color=colors[index % 10],
                       label=name)
        for b in measured:
            flops_per_byte[b] = float(points[b]["gflop_per_s"]) / float(points[b]["gb_per_s"])
    rate.plot(batches, [cufft[b] * flops_per_byte[b] for b in batches], color="black", linestyle="--", linewidth=2,
              label="cuFFT (the line to beat)")
    bandwidth.plot(batches, [cufft[b] for b in batches], color="black", linestyle="--", linewidth=2,
                   label="cuFFT (the line to beat)")
    for axes, unit in ((rate, "GFLOP/s (5 N log2 N per transform)"), (bandwidth, "GB/s (read + write)")):
        axes.set_xscale("log", base=2)
        axes.set_xlabel("batch (1024-point transforms)")
        axes.set_ylabel(unit)
        axes.grid(True, alpha=0.3)
        axes.legend(fontsize=7)
    rate.set_title("1024-point C2C FFT throughput")
    bandwidth.set_title("The same, as bandwidth: an FFT is a copy with arithmetic")

    largest = batches[-1]
    steps = [name for name, points in curves.items() if largest in points and not name.startswith("baseline")]
    x = list(range(len(steps)))
    ladder.bar(x, [float(curves[name][largest]["gflop_per_s"]) for name in steps], color="tab:blue",
               label=f"this GPU, batch {largest}")
    ladder.set_xticks(x + [len(steps), len(steps) + 1])
    ladder.set_xticklabels([f"{name.split()[0]}\n{curves[name][largest]['outputs_per_thread']} out/thr" for name in steps]
                           + [f"G80\n{p} out/thr" for p, _, _ in VOLKOV_FFT_G80], fontsize=7)
    ladder.set_ylabel("GFLOP/s", color="tab:blue")
    twin = ladder.twinx()
    twin.plot(x, [float(curves[name][largest]["occupancy_percent"]) for name in steps], color="tab:red", marker="s",
              label="theoretical occupancy")
    twin.set_ylabel("theoretical occupancy (%)", color="tab:red")
    twin.set_ylim(0, 110)
    # The seed, to the right, on its own scale: GFLOP/s x 10 so that 45 and 93 show beside today's.
    seed_x = [len(steps), len(steps) + 1]
    scale = 100  # G80 GFLOP/s x 100: the same bars as this GPU's, 20 years on
    ladder.bar(seed_x, [g * scale for _, g, _ in VOLKOV_FFT_G80], color="grey",
               label=f"G80 (Volkov 2010), GFLOP/s x {scale:.0f}")
    twin.plot(seed_x, [o for _, _, o in VOLKOV_FFT_G80], color="tab:red", marker="^", linestyle=":",
              label="G80 occupancy")
    ladder.set_title("Volkov's slide 73 on this GPU: GFLOP/s up, occupancy down")
    ladder.legend(fontsize=7, loc="upper left")
    twin.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)


if __name__ == "__main__":
    bench_plot.main("05_fft", COLUMNS_READ, plot)
