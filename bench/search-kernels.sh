#!/usr/bin/env bash
# The Smith-Waterman kernels alone, one thread: the striped (Farrar) kernel against the
# inter-sequence kernel `seqfarm search` uses, for queries of 144 to 5,478 aa against a
# block of random proteins (criterion benchmark crates/sw/benches/kernels.rs, group
# striped_vs_inter), then a table of median GCUPS (M cells/s / 1000).
#
# usage: bench/search-kernels.sh
set -euo pipefail
cd "$(dirname "$0")/.."
echo "# $(date -u +%F) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
cargo bench --quiet -p seqfarm-sw --bench kernels -- striped_vs_inter >/dev/null 2>&1
python3 bench/criterion_table.py "${CARGO_TARGET_DIR:-target}" striped_vs_inter
