#!/usr/bin/env bash
# Per-task overhead of the farm runtime: the criterion benchmark crates/farm/benches/
# overhead.rs (1 M trivial tasks through seqfarm's farm, the same farm on crossbeam
# channels, and rayon, with 1 and 2 workers), then a table of median throughput in
# millions of tasks per second.
#
# usage: bench/farm.sh
set -euo pipefail
cd "$(dirname "$0")/.."
echo "# $(date -u +%F) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
cargo bench --quiet -p seqfarm-farm --features bench --bench overhead >/dev/null 2>&1
python3 bench/criterion_table.py "${CARGO_TARGET_DIR:-target}" trivial_tasks
