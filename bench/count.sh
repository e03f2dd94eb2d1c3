#!/usr/bin/env bash
# Times `seqfarm count` (1 and 2 threads, BED and --window) side by side with
# `bedtools multicov` on windows of one size over the BAMs' contigs (10 kb by default:
# 6,303 windows on chr20), with hyperfine in alternating rounds, after checking that the
# outputs are identical. Prints median wall and CPU seconds and the ratios to bedtools.
#
# usage: bench/count.sh [BAM...]   (default: $SEQFARM_BENCH_DATA/{normal,tumor}.bam)
# env:   ROUNDS (default 3), WINDOW (default 10000), SEQFARM_BENCH_DATA
#        (default /tmp/seqfarm-bench)
set -euo pipefail
cd "$(dirname "$0")/.."
bench=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}
rounds=${ROUNDS:-3}
window=${WINDOW:-10000}
[ $# -gt 0 ] || set -- "$bench/normal.bam" "$bench/tumor.bam"
for tool in hyperfine bedtools samtools python3; do
  command -v "$tool" >/dev/null || { echo "bench/count.sh needs $tool" >&2; exit 1; }
done
cargo build --release --quiet
sf=$PWD/target/release/seqfarm
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
samtools view -H "$1" | awk -F'\t' '/^@SQ/ { sub("SN:", "", $2); sub("LN:", "", $3); print $2 "\t" $3 }' \
  > "$tmp/genome.txt"
bedtools makewindows -g "$tmp/genome.txt" -w "$window" > "$tmp/windows.bed"

echo "# $(date -u +%F) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $(wc -l < "$tmp/windows.bed") windows of $window bp; BAMs: $*"
bedtools multicov -bams "$@" -bed "$tmp/windows.bed" > "$tmp/bedtools.tsv"
"$sf" count -t 2 --bed "$tmp/windows.bed" "$@" > "$tmp/bed.tsv"
"$sf" count -t 2 --window "$window" "$@" > "$tmp/window.tsv"
cmp -s "$tmp/bedtools.tsv" "$tmp/bed.tsv" && cmp -s "$tmp/bedtools.tsv" "$tmp/window.tsv" \
  || { echo "seqfarm and bedtools counts differ" >&2; exit 1; }
echo "# outputs identical"

# shellcheck source=bench/rounds.sh
. bench/rounds.sh
alternate_rounds "$rounds" "$tmp/r" --output null -- \
  "seqfarm -t 1" "$sf count -t 1 --bed $tmp/windows.bed $*" \
  "seqfarm -t 2" "$sf count -t 2 --bed $tmp/windows.bed $*" \
  "seqfarm -t 2 --window" "$sf count -t 2 --window $window $*" \
  "bedtools" "bedtools multicov -bams $* -bed $tmp/windows.bed"
summarize_rounds "$rounds" "$tmp/r" bedtools
