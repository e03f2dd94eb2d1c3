#!/usr/bin/env bash
# Times `seqfarm snp-pileup` (1 and 2 threads) side by side with FACETS snp-pileup on a
# tumor/normal BAM pair and a dbSNP-density site list, with hyperfine in alternating
# rounds, after checking that the outputs are identical. Prints median wall and CPU
# (user + system) seconds and the ratios to FACETS, then peak memory (max RSS).
#
# FACETS snp-pileup is not part of seqfarm: give its binary as SNP_PILEUP=/path, or its
# source as FACETS_SRC=/path/to/facets/inst/extcode (snp-pileup.cpp and snp-pileup.h;
# built here into a temporary directory against the system htslib: needs g++ and
# libhts-dev, as the FACETS documentation builds it).
#
# usage: bench/snp-pileup.sh [NORMAL TUMOR [SITES.vcf.gz]]   (BAMs or CRAMs)
#        defaults: $SEQFARM_BENCH_DATA/{normal,tumor}.bam (from ../shared/data/
#        make-bench-bams.sh; FORMAT=cram: {normal,tumor}.cram, made from them with
#        `samtools view -C -T chr20.fa` and `samtools index`) and a site list made by
#        bench/make-snp-sites.sh from $SEQFARM_BENCH_DATA/chr20.fa. Both tools read a
#        CRAM against the reference its @SQ UR: names. On CRAMs seqfarm built with
#        noodles-cram instead of htslib (bench/noodles-build.sh) is timed too.
# env:   ROUNDS (default 3), SEQFARM_BENCH_DATA (default /tmp/seqfarm-bench),
#        SNP_PILEUP or FACETS_SRC, OPTIONS (extra snp-pileup options, e.g. "-q15 -Q20")
set -euo pipefail
cd "$(dirname "$0")/.."
bench=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}
rounds=${ROUNDS:-3}
options=${OPTIONS:-}
ext=${FORMAT:-bam}
normal=${1:-$bench/normal.$ext}
tumor=${2:-$bench/tumor.$ext}
sites=${3:-$bench/sites-chr20.vcf.gz}
for tool in hyperfine python3 /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench/snp-pileup.sh needs $tool" >&2; exit 1; }
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if [ -z "${SNP_PILEUP:-}" ]; then
  src=${FACETS_SRC:?give SNP_PILEUP=/path/to/snp-pileup or FACETS_SRC=/path/to/facets/inst/extcode}
  cp "$src/snp-pileup.cpp" "$src/snp-pileup.h" "$tmp/"
  # The upstream build line (FACETS README), against the system htslib.
  g++ -std=c++11 "$tmp/snp-pileup.cpp" -lhts -o "$tmp/snp-pileup" 2>/dev/null
  SNP_PILEUP=$tmp/snp-pileup
fi
if [ ! -f "$sites" ]; then
  bench/make-snp-sites.sh "$bench/chr20.fa" "$sites"
fi
noodles=()
if [ "$(head -c 4 "$normal")" = CRAM ]; then
  nsf=$(bench/noodles-build.sh "$tmp")
  noodles=("noodles -t 2" "$nsf snp-pileup $options -t 2 $sites $tmp/out4.csv $normal $tumor")
fi
cargo build --release --quiet
sf=$PWD/target/release/seqfarm
nsites=$(zcat -f "$sites" | grep -vc '^#')

echo "# $(date -u +%F) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $nsites sites; BAMs $(du -m "$normal" | cut -f1) + $(du -m "$tumor" | cut -f1) MB; options: ${options:-none}"
# The outputs must agree before the times mean anything.
# shellcheck disable=SC2086
"$SNP_PILEUP" $options "$sites" "$tmp/facets.csv" "$normal" "$tumor" >/dev/null
# shellcheck disable=SC2086
"$sf" snp-pileup $options -t 2 "$sites" "$tmp/seqfarm.csv" "$normal" "$tumor"
cmp -s "$tmp/facets.csv" "$tmp/seqfarm.csv" \
  || { echo "seqfarm and FACETS outputs differ" >&2; exit 1; }
echo "# outputs identical: $(($(wc -l < "$tmp/seqfarm.csv") - 1)) rows"

# shellcheck source=bench/rounds.sh
. bench/rounds.sh
alternate_rounds "$rounds" "$tmp/r" --prepare "rm -f $tmp/out[1-4].csv" -- \
  "seqfarm -t 1" "$sf snp-pileup $options -t 1 $sites $tmp/out1.csv $normal $tumor" \
  "seqfarm -t 2" "$sf snp-pileup $options -t 2 $sites $tmp/out2.csv $normal $tumor" \
  "facets" "$SNP_PILEUP $options $sites $tmp/out3.csv $normal $tumor" \
  "${noodles[@]}"
summarize_rounds "$rounds" "$tmp/r" facets
for t in 1 2; do
  rm -f "$tmp/m.csv"
  # shellcheck disable=SC2086
  /usr/bin/time -f "peak memory, seqfarm -t $t: %M KB" "$sf" snp-pileup $options -t "$t" \
    "$sites" "$tmp/m.csv" "$normal" "$tumor" 2>&1 | tail -1
done
