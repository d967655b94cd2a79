#!/usr/bin/env python3
"""Plot a lab's benchmark CSV (written by `./workbook bench LAB`) as a PNG.

usage: plot_bench.py LAB CSV PNG
"""
import csv
import sys
from collections import defaultdict

# What each lab's sweep plots: x and y columns, the curve column, labels, and the seed paper's
# points drawn beside this GPU's (label, x, y).
PLOTS = {
    "02_memory": {
        "x": "occupancy_percent",
        "y": "percent_of_memcpy",
        "curve": "step",
        "xlabel": "theoretical occupancy (%)",
        "ylabel": "bandwidth (% of cudaMemcpy, same run)",
        "title": "Copy bandwidth against occupancy (after Volkov 2010, slides 31-40)",
        "logx": True,
        "seed_points": [("Volkov, GTX 480: 84% of peak at 4% occupancy", 4.0, 84.0)],
    },
}


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    lab, csv_path, png_path = sys.argv[1:]
    if lab not in PLOTS:
        sys.exit(f"no plot is defined for lab {lab!r}; the labs with plots are: {', '.join(PLOTS)}")
    spec = PLOTS[lab]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curves = defaultdict(list)
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            curves[row[spec["curve"]]].append((float(row[spec["x"]]), float(row[spec["y"]])))
    if not curves:
        sys.exit(f"{csv_path} has no rows: was any step implemented?")

    fig, ax = plt.subplots(figsize=(9, 5.5))
    for name, points in curves.items():
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=name)
    for label, x, y in spec.get("seed_points", []):
        ax.scatter([x], [y], marker="*", s=160, color="black", zorder=5, label=label)
    if spec.get("logx"):
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax.axhline(100, color="grey", linestyle="--", linewidth=1)
    ax.set_xlabel(spec["xlabel"])
    ax.set_ylabel(spec["ylabel"])
    ax.set_title(spec["title"])
    ax.set_ylim(0, 110)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)


if __name__ == "__main__":
    main()
