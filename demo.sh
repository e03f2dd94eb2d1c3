#!/usr/bin/env bash
# Builds seqfarm and runs each command on the example data bundled in tests/data.
set -euo pipefail
cd "$(dirname "$0")"
cargo build --release --quiet
sf=target/release/seqfarm
data=tests/data
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

"$sf" --version

# Smith-Waterman search: 10 UniProt queries against 1,500 UniProt sequences, 2 best hits each.
step "$sf" search --top 2 "$data/sw_q10.fa" "$data/sw_db1500.fa.gz"
