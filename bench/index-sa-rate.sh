#!/usr/bin/env bash
# Index size and locate speed against the suffix-array sampling rate: builds the genome's
# index at each rate with `seqfarm index --sa-rate R` and runs the query_speed example
# twice per index (locating up to 100 occurrences of each of 100,000 genome 20-mers).
#
# usage: bench/index-sa-rate.sh [GENOME.fa.gz]   (default: GRCh37 chr20 from ../shared/data/genomes)
# env:   RATES (default "4 8 16 32 64"), THREADS (default 2), OUT (default $SEQFARM_BENCH_DATA/sa-rate)
set -euo pipefail
cd "$(dirname "$0")/.."
genome=${1:-../shared/data/genomes/human_GRCh37_chr20.fa.gz}
out=${OUT:-${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}/sa-rate}
mkdir -p "$out"
bin=${CARGO_TARGET_DIR:-target}/release
cargo build --release --quiet
cargo build --release --quiet -p seqfarm-fmindex --example query_speed
echo "# $(date -u +%F) $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg); $(basename "$genome")"
printf '%4s %9s %s\n' rate index_MB "locate ns per occurrence (two runs)"
for r in ${RATES:-4 8 16 32 64}; do
  "$bin"/seqfarm index -t "${THREADS:-2}" --sa-rate "$r" --force -o "$out/r$r" "$genome" >/dev/null 2>&1
  ns=()
  for _ in 1 2; do
    ns+=("$("$bin"/examples/query_speed "$out/r$r.sfi" 200000 20 | awk -F'\t' '$1 == "locate" { sub(/ ns each.*/, "", $3); sub(/.*, /, "", $3); print $3 }')")
  done
  printf '%4s %9.1f %s\n' "$r" "$(awk -v b="$(stat -c %s "$out/r$r.sfi")" 'BEGIN { print b / 1e6 }')" "${ns[*]}"
done
