#!/usr/bin/env python3
"""Plot a lab's benchmark CSV (written by `./workbook bench LAB`) as a PNG.

usage: plot_bench.py LAB CSV PNG
       plot_bench.py --check-columns LAB COLUMNS   (COLUMNS: the grader's --bench-columns)

The CSV's format is defined once, by the lab's grader (its register_bench() columns). This script
reads columns by name; COLUMNS_READ says which, and a CPU test checks them against the grader.
"""
import csv
import sys
from collections import defaultdict

# Lab 01: the seeds. Volkov (GTC 2010, slides 16-22), GTX 480: the threads per SM that reach the
# arithmetic peak at ILP 1, 2, 3 and 4. Kolpakova ("Code GPU with CUDA"), Kepler: load latencies.
LATENCY_SEED_GTX480_THREADS = {1: 576, 2: 320, 3: 256, 4: 192}
LATENCY_SEED_KEPLER_CYCLES = {"L1": 34, "L2": 160, "global": 350}


def plot_latency(csv_path, png_path, plt):
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


# Lab 02: the seed's point (Volkov, GTC 2010, slides 31-40): occupancy %, % of peak bandwidth.
MEMORY_SEED_GTX480 = ("Volkov, GTX 480: 84% of peak at 4% occupancy", 4.0, 84.0)


def plot_memory(csv_path, png_path, plt):
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


# Lab 03: the seed's table (Ruetsch and Micikevicius, "Optimizing Matrix Transpose in CUDA", 2009,
# GTX 280): GB/s of each kernel.
TRANSPOSE_SEED_GTX280 = {"naive": 5.3, "tiled": 75.1, "padded": 93.4, "copy": 112.4}


def plot_transpose(csv_path, png_path, plt):
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


# Lab 04: the seed's number and today's public ones, as % of the vendor library of their day.
# Volkov and Demmel, "Benchmarking GPUs to Tune Dense Linear Algebra", SC08 (abstract): their GEMM
# ran "up to 60% faster than the vendor's implementation" (CUBLAS 1.1, on G80 and GT200 GPUs).
SGEMM_SEED = ("V&D 2008\n(CUBLAS 1.1)", 160.0)
# Public hand-written FP32 kernels on an H100, % of cuBLAS at 4096^3 (as quoted by the lab's brief):
# an autotuned cp.async kernel at 45.7 TFLOP/s, and the last step of the well-known 10-step
# warptiling tutorial.
SGEMM_PUBLIC_H100 = [("autotuned cp.async kernel (public): 88%", 88.0), ("10-step warptiling tutorial: 71%", 71.0)]
SGEMM_AUTOTUNED_TFLOPS = 45.7


def plot_sgemm(csv_path, png_path, plt):
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


# Lab 05: Volkov 2010, slides 71-73: CUFFT 2.2 (2 outputs per thread) and 2.3 (16 outputs per
# thread), 1024-point FFTs on a G80: GFLOP/s and occupancy.
VOLKOV_FFT_G80 = [(2, 45.0, 33.0), (16, 93.0, 17.0)]


def plot_fft(csv_path, png_path, plt):
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


# Lab 06: Harris's seven reduction kernels on a G80 (2007), GB/s for 2^22 ints, and the G80's peak.
HARRIS_G80_GB_PER_S = [2.08, 4.85, 9.74, 17.38, 31.29, 43.99, 62.67]
HARRIS_G80_PEAK = 86.4


def plot_reduce_scan(csv_path, png_path, plt):
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


PLOTTERS = {"01_latency": plot_latency, "02_memory": plot_memory, "03_transpose": plot_transpose, "04_sgemm": plot_sgemm,
            "05_fft": plot_fft, "06_reduce_scan": plot_reduce_scan}

# The columns each plot reads, by name.
COLUMNS_READ = {
    "01_latency": ["curve", "ilp", "warps_per_sm", "percent_of_peak", "predicted_percent", "working_set_bytes",
                   "cycles_per_load"],
    "02_memory": ["step", "occupancy_percent", "percent_of_memcpy"],
    "03_transpose": ["curve", "rows", "cols", "gb_per_s", "percent_of_memcpy", "memcpy_gb_per_s"],
    "04_sgemm": ["curve", "m", "n", "k", "cublas_gflop_per_s", "gflop_per_s", "percent_of_cublas", "occupancy_percent"],
    "05_fft": ["curve", "batch", "source", "gflop_per_s", "gb_per_s", "cufft_gb_per_s", "occupancy_percent", "outputs_per_thread"],
    "06_reduce_scan": ["curve", "operation", "n", "gb_per_s", "cub_gb_per_s", "copy_gb_per_s"],
}


def missing_columns(lab, columns):
    """The columns the lab's plot reads that `columns` lacks."""
    return [c for c in COLUMNS_READ[lab] if c not in columns]


def check_lab(lab):
    if lab not in PLOTTERS:
        sys.exit(f"no plot is defined for lab {lab!r}; the labs with plots are: {', '.join(PLOTTERS)}")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--check-columns":
        lab, columns = sys.argv[2], sys.argv[3].strip().split(",")
        check_lab(lab)
        missing = missing_columns(lab, columns)
        if missing:
            sys.exit(f"the {lab} plot reads columns the grader does not write: {', '.join(missing)}")
        print(f"{lab}: the plot's {len(COLUMNS_READ[lab])} columns are all among the grader's {len(columns)}")
        return
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    lab, csv_path, png_path = sys.argv[1:]
    check_lab(lab)
    with open(csv_path, newline="") as f:
        header = next(csv.reader(f), [])
    missing = missing_columns(lab, header)
    if missing:
        sys.exit(f"{csv_path} lacks the columns {', '.join(missing)}: it was written by another version of the "
                 f"grader; run ./workbook bench {lab} again")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    PLOTTERS[lab](csv_path, png_path, plt)


if __name__ == "__main__":
    main()
