#!/usr/bin/env bash
# Makes the README's pictures (docs/img/*.svg) with each command's --plot: snp-pileup,
# count and depth on the chr20 bench BAMs (normal.bam, tumor.bam and the sites of
# sites-chr20.vcf.gz under $SEQFARM_BENCH_DATA, default /tmp/seqfarm-bench; see
# bench/snp-pileup.sh and bench/make-snp-sites.sh), align on the bundled simulated pairs.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release --quiet -p seqfarm-cli
sf=$PWD/target/release/seqfarm
bench=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}
img=docs/img
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
set -x
"$sf" snp-pileup -t 2 -q15 -Q20 --plot "$img/snp-pileup.svg" --force \
  "$bench/sites-chr20.vcf.gz" "$out/pileup.csv" "$bench/normal.bam" "$bench/tumor.bam"
"$sf" count -t 2 --window 100000 --plot "$img/count.svg" --force -o "$out/windows.tsv" \
  "$bench/normal.bam" "$bench/tumor.bam"
"$sf" depth -t 2 --window 100000 --plot "$img/depth.svg" --force -o "$out/depth" \
  "$bench/normal.bam"
"$sf" index -t 2 -o "$out/piece" tests/data/index_ref.fa.gz
"$sf" align -p 2 -x "$out/piece" -1 tests/data/pe_sim_R1.fq.gz -2 tests/data/pe_sim_R2.fq.gz \
  -X 1000 -S "$out/pairs.sam" --quiet --plot "$img/align.svg" --force
