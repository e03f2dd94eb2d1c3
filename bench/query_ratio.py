#!/usr/bin/env python3
"""Compares two sets of `query_speed` runs (files PREFIX.1.tsv .. PREFIX.RUNS.tsv each):
prints one Markdown table row per query with the median time of each set, the ratio of
the medians (B over A) and the range of the per-run ratios. Used by bench/index-large.sh
(contig against the big index) and bench/align-revisions.sh (two revisions).

    query_ratio.py A_PREFIX B_PREFIX RUNS [--details]
"""
import statistics
import sys

# Rows that time no query (loading, page-size report).
SKIPPED = {"load_mmap_verified", "load_mmap", "load_copy", "queries_on", "huge_pages"}


def read(prefix, runs):
    sets = []
    for run in range(1, runs + 1):
        with open(f"{prefix}.{run}.tsv") as f:
            rows = (line.rstrip("\n").split("\t") for line in f if line.strip())
            sets.append({name: (float(secs), detail) for name, secs, detail in rows})
    return sets


def main():
    a_prefix, b_prefix, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    details = "--details" in sys.argv[4:]
    a_runs, b_runs = read(a_prefix, runs), read(b_prefix, runs)
    for name in a_runs[0]:
        if name in SKIPPED or any(name not in r for r in a_runs + b_runs):
            continue
        a = statistics.median(r[name][0] for r in a_runs)
        b = statistics.median(r[name][0] for r in b_runs)
        ratios = [y[name][0] / x[name][0] for x, y in zip(a_runs, b_runs) if x[name][0] > 0]
        spread = f"{min(ratios):.2f}-{max(ratios):.2f}x" if ratios else ""
        ratio = f"{b / a:.2f}x" if a > 0 else ""
        row = f"| {name} | {a:.3f} | {b:.3f} | {ratio} | {spread} |"
        if details:
            row += f" {a_runs[0][name][1]} | {b_runs[0][name][1]} |"
        print(row)


if __name__ == "__main__":
    main()
