#!/usr/bin/env bash
# Smith-Waterman database search: `seqfarm search` against parasail's
# sw_striped_profile_sat (the Debian libparasail, through bench/parasail_search.c, built
# here and linked only into that helper) on the classic query set, at 1 and 2 threads.
#
# usage: bench/search.sh [DATABASE.fa[.gz]]   (default: $SEQFARM_BENCH_DATA/swissprot2014.faa.gz)
#        THREADS="1 2" QUERIES="P02232 P07327" REPEAT=3 bench/search.sh   to choose
#        QUERY_SOURCE=other.fa bench/search.sh small.fa   to take the queries from another file
#
# Both tools read the same uncompressed FASTA (decompressed once next to the database,
# or into $SEQFARM_BENCH_DATA when that directory is read-only).
# For each query and thread count the two tools run in turn, REPEAT times (median
# reported), so a load change on a shared machine hits both alike.
#   wall GCUPS = query length x database residues / wall seconds: seqfarm's whole scan as
#     it reports it (reading and parsing the database included); parasail's alignment
#     loop only (its reading is not timed);
#   CPU GCUPS = the same cells / CPU seconds of those spans (all threads): throughput per
#     busy core, robust to other processes taking the cores.
# The sums of all scores of the two tools are compared: benchmarks of wrong answers are
# worthless.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/queries.sh
data=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}
database=${1:-$data/swissprot2014.faa.gz}
threads=${THREADS:-"1 2"}
repeat=${REPEAT:-3}
read -r -a queries <<< "${QUERIES:-P02232 P01111 P07327 P01008 P04775 P19096 P28167 P20930 Q9UKN1}"
for tool in cc awk gzip /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench/search.sh: needs $tool" >&2; exit 1; }
done
[ -f /usr/include/parasail.h ] || { echo "bench/search.sh: needs libparasail-dev" >&2; exit 1; }
[ -f "$database" ] || { echo "bench/search.sh: no database $database (see ../shared/data/make-swissprot2014.sh)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

plain=$database
if [[ "$database" == *.gz ]]; then
  plain=${database%.gz}
  [ -w "$(dirname "$plain")" ] || plain=$data/$(basename "$plain")
  [ -f "$plain" ] || gzip -dc "$database" > "$plain"
fi

split_queries bench/search.sh "${QUERY_SOURCE:-$plain}" "$work" "${queries[@]}"

cargo build --release --quiet
seqfarm=target/release/seqfarm
cc -O3 -fopenmp bench/parasail_search.c -lparasail -o "$work/parasail_search"
residues=$(awk '!/^>/ { n += length($0) } END { printf "%d", n }' "$plain")

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
echo "# database: $plain ($residues residues); median of $repeat alternating runs"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %6s %3s | %8s %8s %8s | %8s %8s %8s | %5s %5s | %s\n' \
  query length thr seqfarm_s wallGCUPS cpuGCUPS parasail wallGCUPS cpuGCUPS wall cpu scores
for t in $threads; do
  for q in "${queries[@]}"; do
    length=$(awk '!/^>/ { n += length($0) } END { print n }' "$work/$q.fa")
    : > "$work/ours.txt"
    : > "$work/theirs.txt"
    for _ in $(seq "$repeat"); do
      "$work/parasail_search" "$work/$q.fa" "$plain" sw_striped_profile_sat "$t" |
        awk 'NR == 2 { print $3, $6, $5 }' >> "$work/theirs.txt"
      /usr/bin/time -f '%U %S' -o "$work/cpu.txt" \
        "$seqfarm" search -t "$t" --scores-only --force -o "$work/scores.tsv" "$work/$q.fa" "$plain" \
        2> "$work/report.txt"
      seconds=$(sed -n 's/.* in \([0-9.]*\) s: .*/\1/p' "$work/report.txt")
      cpu=$(awk '{ print $1 + $2 }' "$work/cpu.txt")
      sum=$(awk '{ s += $3 } END { printf "%d", s }' "$work/scores.tsv")
      echo "$seconds $cpu $sum" >> "$work/ours.txt"
    done
    ours_s=$(cut -d' ' -f1 "$work/ours.txt" | median)
    ours_cpu=$(cut -d' ' -f2 "$work/ours.txt" | median)
    theirs_s=$(cut -d' ' -f1 "$work/theirs.txt" | median)
    theirs_cpu=$(cut -d' ' -f2 "$work/theirs.txt" | median)
    ours_sum=$(cut -d' ' -f3 "$work/ours.txt" | sort -u | tr '\n' ' ')
    theirs_sum=$(cut -d' ' -f3 "$work/theirs.txt" | sort -u | tr '\n' ' ')
    same=$([ "$ours_sum" = "$theirs_sum" ] && echo equal || echo "DIFFER (${ours_sum}vs ${theirs_sum})")
    awk -v q="$q" -v len="$length" -v t="$t" -v res="$residues" -v os="$ours_s" -v oc="$ours_cpu" \
        -v ts="$theirs_s" -v tc="$theirs_cpu" -v same="$same" 'BEGIN {
      cells = len * res / 1e9
      printf "%-8s %6d %3d | %8.2f %8.2f %8.2f | %8.2f %8.2f %8.2f | %5.2f %5.2f | %s\n",
        q, len, t, os, cells / os, cells / oc, ts, cells / ts, cells / tc, ts / os, tc / oc, same }'
  done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
