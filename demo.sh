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

# Index a small genome (E. coli and human chr20 pieces; chr20 starts with 60 kbp of N) and
# look up a few patterns on both strands.
step "$sf" index -t 2 -o "$out/piece" "$data/index_ref.fa.gz"
step "$sf" index --check "$out/piece"
step "$sf" locate -x "$out/piece" --max-hits 5 AGCTTTTCATTCTGACTGCAACGG GGATCC NNNNNNNNNN

# Align simulated reads to the bundled genome piece (end-to-end SAM, then local BAM).
step "$sf" index -o "$out/align_ref" "$data/index_ref.fa.gz"
step "$sf" align -x "$out/align_ref" -U "$data/align_reads_150.fq.gz" -S "$out/reads.sam" -p 2
awk '!/^@/ && n++ < 3' "$out/reads.sam" | cut -f 1-9,12-
step "$sf" align --local -x "$out/align_ref" -U "$data/align_reads_100.fq.gz" -o "$out/reads.bam" -p 2
