#!/usr/bin/env bash
# The inter-sequence Smith-Waterman kernel `seqfarm search` uses, alone, one thread: one
# random protein query of 144 to 5,478 aa against a block of 2,000 random proteins, per SIMD
# path this CPU has (AVX2, AVX-512BW; criterion benchmark crates/sw/benches/kernels.rs,
# groups query*), then a table of median GCUPS (M cells/s / 1000).
#
# usage: bench/search-kernels.sh
set -euo pipefail
cd "$(dirname "$0")/.."
echo "# $(date -u +%F) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
cargo bench --quiet -p seqfarm-sw --features bench --bench kernels -- query >/dev/null 2>&1
python3 bench/criterion_table.py "${CARGO_TARGET_DIR:-target}" query
