#!/usr/bin/env bash
# Smith-Waterman database search on an NVIDIA GPU: `seqfarm search --gpu` against
# seqfarm's own CPU kernels on all cores of the same machine, on the classic query set,
# with the scores of the two compared.
#
# usage: bench/search-gpu.sh [DATABASE.fa[.gz|.xz]]  (default: $SEQFARM_BENCH_DATA/swissprot2014.faa.gz)
#   SEQFARM=path/to/seqfarm   use this binary (default: cargo build --release)
#   QUERIES="P02232 P07327"   accessions to search (default: the classic set, 144-5,478 aa)
#   QUERY_SOURCE=file.fa      where they are (default: the database)
#   QUERY_RESIDUES=20000      the GPU runs search each query as copies of it, at least this
#                             many residues in all, so that scoring, not reading the database,
#                             sets the time
#   CPU_QUERY_RESIDUES=4000   the same for the CPU runs
#   THREADS=N                 worker threads of both (default: all cores)
#
# For each query: the copies searched, wall seconds and GCUPS (query length x copies x database residues / the
# scan's seconds as seqfarm reports them: reading and parsing the database included, the
# kernels' compilation and the traceback of the reported hits not), for the GPU and the
# CPU; and whether `--scores-only` with one copy gave the same bytes on both.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/queries.sh
data=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}
database=${1:-$data/swissprot2014.faa.gz}
query_residues=${QUERY_RESIDUES:-20000}
cpu_query_residues=${CPU_QUERY_RESIDUES:-4000}
threads=${THREADS:-$(nproc)}
read -r -a queries <<< "${QUERIES:-P02232 P01111 P07327 P01008 P04775 P19096 P28167 P20930 Q9UKN1}"
[ -f "$database" ] || { echo "bench/search-gpu.sh: no database $database (see ../shared/data/make-swissprot2014.sh)" >&2; exit 1; }
command -v nvidia-smi >/dev/null || { echo "bench/search-gpu.sh: needs an NVIDIA GPU (nvidia-smi)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

plain=$work/db.fa
case "$database" in
  *.gz) gzip -dc "$database" > "$plain" ;;
  *.xz) xz -dc "$database" > "$plain" ;;
  *) plain=$database ;;
esac

split_queries bench/search-gpu.sh "${QUERY_SOURCE:-$plain}" "$work" "${queries[@]}"

if [ -z "${SEQFARM:-}" ]; then
  cargo build --release --quiet
  SEQFARM=target/release/seqfarm
fi

# $2 copies of the query in $1, named NAME_1, NAME_2, ...
copies_of() {
  awk -v n="$2" '/^>/ { name = substr($1, 2); next } { seq = seq $0 }
    END { for (i = 1; i <= n; i++) printf(">%s_%d\n%s\n", name, i, seq) }' "$1"
}
# The seconds and GCUPS of a search's report line.
speed() { sed -n 's/.* in \([0-9.]*\) s: \([0-9.]*\) GCUPS.*/\1 \2/p' "$1"; }

residues=$(awk '!/^>/ { n += length($0) } END { printf "%d", n }' "$plain")
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
echo "# CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(grep -o -m1 -w 'avx512bw' /proc/cpuinfo || echo avx2); $threads threads"
echo "# database: $database, $(grep -c '^>' "$plain") sequences, $residues residues; each query searched as copies of at least $query_residues (GPU) and $cpu_query_residues (CPU) residues"
printf '%-8s %6s %6s %8s %10s %6s %8s %10s %8s %s\n' query length copies gpu_s gpu_GCUPS copies cpu_s cpu_GCUPS gpu/cpu scores
for q in "${queries[@]}"; do
  length=$(awk '!/^>/ { n += length($0) } END { print n }' "$work/$q.fa")
  copies=$(( (query_residues + length - 1) / length ))
  cpu_copies=$(( (cpu_query_residues + length - 1) / length ))
  copies_of "$work/$q.fa" "$copies" > "$work/gpu.fa"
  copies_of "$work/$q.fa" "$cpu_copies" > "$work/cpu.fa"
  "$SEQFARM" search --gpu -t "$threads" "$work/gpu.fa" "$plain" -o "$work/gpu.out" --force 2> "$work/gpu.err" \
    || { cat "$work/gpu.err" >&2; exit 1; }
  "$SEQFARM" search -t "$threads" "$work/cpu.fa" "$plain" -o "$work/cpu.out" --force 2> "$work/cpu.err" \
    || { cat "$work/cpu.err" >&2; exit 1; }
  "$SEQFARM" search --gpu -t "$threads" --scores-only "$work/$q.fa" "$plain" -o "$work/gpu.tsv" --force 2>/dev/null
  "$SEQFARM" search -t "$threads" --scores-only "$work/$q.fa" "$plain" -o "$work/cpu.tsv" --force 2>/dev/null
  same=$(cmp -s "$work/gpu.tsv" "$work/cpu.tsv" && echo same || echo DIFFER)
  read -r gs gg <<< "$(speed "$work/gpu.err")"
  read -r cs cg <<< "$(speed "$work/cpu.err")"
  printf '%-8s %6d %6d %8.2f %10.1f %6d %8.2f %10.1f %7.1fx %s\n' "$q" "$length" "$copies" "$gs" "$gg" \
    "$cpu_copies" "$cs" "$cg" \
    "$(awk -v a="$gg" -v b="$cg" 'BEGIN { print a / b }')" "$same"
done
