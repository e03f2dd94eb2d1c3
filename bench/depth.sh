#!/usr/bin/env bash
# Times `seqfarm depth` (1 and 2 threads) side by side with mosdepth 0.3 (1 and 2
# decompression threads) on windows of 500 bp with thresholds 1,10,20, after checking
# that the files they write are identical (the .gz ones decompressed). Prints hyperfine's
# table of mean wall seconds.
#
# usage: bench/depth.sh [BAM]   (default: $SEQFARM_BENCH_DATA/normal.bam)
# env:   RUNS (default 3), WINDOW (default 500), PER_BASE=1 (also the per-base depth:
#        seqfarm --per-base against mosdepth without -n), SEQFARM_BENCH_DATA
#        (default /tmp/seqfarm-bench), SEQFARM (a seqfarm binary to time instead of
#        building this checkout's)
set -euo pipefail
cd "$(dirname "$0")/.."
bench=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}
runs=${RUNS:-3}
window=${WINDOW:-500}
bam=${1:-$bench/normal.bam}
for tool in hyperfine mosdepth; do
  command -v "$tool" >/dev/null || { echo "bench/depth.sh needs $tool" >&2; exit 1; }
done
sf=${SEQFARM:-}
if [ -z "$sf" ]; then
  cargo build --release --quiet -p seqfarm-cli
  sf=$PWD/target/release/seqfarm
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
files="regions.bed.gz thresholds.bed.gz mosdepth.summary.txt mosdepth.global.dist.txt mosdepth.region.dist.txt"
theirs="-n --by $window -T 1,10,20"
ours="--window $window -T 1,10,20"
label=""
if [ "${PER_BASE:-0}" = 1 ]; then
  theirs="--by $window -T 1,10,20"
  ours="$ours --per-base"
  files="$files per-base.bed.gz"
  label=", per-base depth"
fi

echo "# $(date -u +%F) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $bam, windows of $window bp, thresholds 1,10,20$label"
mosdepth $theirs "$tmp/m" "$bam"
"$sf" depth -t 2 $ours -o "$tmp/s" "$bam"
for f in $files; do
  cmp -s <(zcat -f "$tmp/m.$f") <(zcat -f "$tmp/s.$f") \
    || { echo "seqfarm and mosdepth differ in $f" >&2; exit 1; }
done
echo "# outputs identical"

hyperfine --runs "$runs" --warmup 1 --style basic --export-markdown "$tmp/table.md" \
  -n "seqfarm depth -t 1" "$sf depth --force -t 1 $ours -o $tmp/s $bam" \
  -n "seqfarm depth -t 2" "$sf depth --force -t 2 $ours -o $tmp/s $bam" \
  -n "mosdepth -t 1" "mosdepth -t 1 $theirs $tmp/m $bam" \
  -n "mosdepth -t 2" "mosdepth -t 2 $theirs $tmp/m $bam" >&2
cat "$tmp/table.md"
