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

# flagstat: samtools-identical FLAG statistics, parallel through the BAM index.
step "$sf" flagstat -t 2 "$data/bam/chm1.bam"
step "$sf" flagstat -O tsv "$data/bam/sarscov2.bam"
