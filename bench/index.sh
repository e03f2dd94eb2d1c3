#!/usr/bin/env bash
# Index build and query speed: `seqfarm index -t THREADS` side by side with `bwa index`
# and `bowtie2-build --threads THREADS` on real genomes; then load time and 1 M 20-mer
# counts on the seqfarm index.
#
#   bench/index.sh [GENOME.fa.gz ...]
#
# Defaults: human GRCh37 chr20 and A. thaliana chr1 from ../shared/data/genomes.
# Environment: THREADS (default 2), OUT (work directory, default
# $SEQFARM_BENCH_DATA/index-bench), PEERS=0 to skip bwa and bowtie2.
# Needs: bwa, bowtie2-build, GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
threads=${THREADS:-2}
out=${OUT:-${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}/index-bench}
peers=${PEERS:-1}
shared=../shared/data/genomes
if [ $# -eq 0 ]; then
  set -- "$shared/human_GRCh37_chr20.fa.gz" "$shared/Athaliana_TAIR10_chr1.fna.gz"
fi
for genome in "$@"; do
  [ -r "$genome" ] || { echo "bench/index.sh: cannot read $genome (pass genome paths as arguments)" >&2; exit 1; }
done
mkdir -p "$out"
cargo build --release --quiet
cargo build --release --quiet -p seqfarm-fmindex --example query_speed
sf=$root/target/release/seqfarm
query=$root/target/release/examples/query_speed

echo "# $(date -u +%Y-%m-%d) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load: $(cut -d' ' -f1-3 /proc/loadavg)"

# measure NAME CMD...: runs CMD under GNU time, prints "wall_s peak_kb"; fails (showing
# the command's output) when CMD fails.
measure() {
  local log=$out/$1.time; shift
  if ! /usr/bin/time -f '%e %M' -o "$log" "$@" >"$log.out" 2>&1; then
    cat "$log.out" >&2
    return 1
  fi
  cat "$log"
}

for genome in "$@"; do
  name=$(basename "$genome"); name=${name%%.*}
  work=$out/$name; rm -rf "$work"; mkdir -p "$work"
  echo
  echo "## $name"
  echo
  echo "| tool | wall s | peak MB | peak bytes/base | index MB |"
  echo "|---|---:|---:|---:|---:|"
  res=$(measure "$name.seqfarm" "$sf" index -t "$threads" -o "$work/seqfarm" "$genome")
  read -r sf_s sf_kb <<<"$res"
  bases=$(grep -o '[0-9]* bases' "$out/$name.seqfarm.time.out" | cut -d' ' -f1)
  sf_mb=$(du -b "$work/seqfarm.sfi" | awk '{printf "%.1f", $1/1e6}')
  printf '| seqfarm index -t %s | %.1f | %.0f | %.2f | %s |\n' "$threads" "$sf_s" "$((sf_kb / 1024))" "$(echo "$sf_kb * 1024 / $bases" | bc -l)" "$sf_mb"
  if [ "$peers" = 1 ]; then
    cp "$genome" "$work/bwa.fa.gz"
    res=$(measure "$name.bwa" bwa index "$work/bwa.fa.gz")
    read -r bwa_s bwa_kb <<<"$res"
    bwa_mb=$(du -bc "$work"/bwa.fa.gz.{bwt,pac,ann,amb,sa} | tail -1 | awk '{printf "%.1f", $1/1e6}')
    printf '| bwa index | %.1f | %.0f | %.2f | %s |\n' "$bwa_s" "$((bwa_kb / 1024))" "$(echo "$bwa_kb * 1024 / $bases" | bc -l)" "$bwa_mb"
    res=$(measure "$name.bowtie2" bowtie2-build --threads "$threads" "$genome" "$work/bt2")
    read -r bt_s bt_kb <<<"$res"
    bt_mb=$(du -bc "$work"/bt2.*.bt2 | tail -1 | awk '{printf "%.1f", $1/1e6}')
    printf '| bowtie2-build --threads %s | %.1f | %.0f | %.2f | %s |\n' "$threads" "$bt_s" "$((bt_kb / 1024))" "$(echo "$bt_kb * 1024 / $bases" | bc -l)" "$bt_mb"
    echo
    printf 'seqfarm / bwa: build time %.2fx, index size %.2fx; seqfarm / bowtie2-build: build time %.2fx\n' \
      "$(echo "$sf_s / $bwa_s" | bc -l)" "$(echo "$sf_mb / $bwa_mb" | bc -l)" "$(echo "$sf_s / $bt_s" | bc -l)"
  fi
  echo
  echo "stages: $(grep -o '([^)]*)$' "$out/$name.seqfarm.time.out")"
  echo
  echo "| query ($bases bases) | seconds | detail |"
  echo "|---|---:|---|"
  "$query" "$work/seqfarm.sfi" 1000000 20 | awk -F'\t' '{printf "| %s | %s | %s |\n", $1, $2, $3}'
  rm -rf "$work"
done
