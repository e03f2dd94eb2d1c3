#!/usr/bin/env python3
"""Prints the results criterion left under TARGET/criterion for the benchmark groups whose
id starts with PREFIX: one row per benchmark, median time and throughput (elements per
second, in millions: tasks for the farm, cells for the Smith-Waterman kernels).

usage: criterion_table.py TARGET_DIR PREFIX
"""
import glob
import json
import os
import sys

target, prefix = sys.argv[1], sys.argv[2]
rows = []
for path in glob.glob(os.path.join(target, "criterion", "**", "new", "benchmark.json"), recursive=True):
    bench = json.load(open(path))
    if not bench["group_id"].startswith(prefix):
        continue
    median_ns = json.load(open(os.path.join(os.path.dirname(path), "estimates.json")))["median"]["point_estimate"]
    elements = (bench.get("throughput") or {}).get("Elements", 0)
    rows.append((bench["group_id"], bench["function_id"], bench.get("value_str") or "", median_ns, elements))
print(f"{'group':<28} {'benchmark':<20} {'param':>5} {'median_ms':>10} {'M_elements/s':>13}")
for group, function, value, ns, elements in sorted(rows):
    rate = elements / (ns / 1e9) / 1e6 if elements else float("nan")
    print(f"{group:<28} {function:<20} {value:>5} {ns / 1e6:10.3f} {rate:13.1f}")
