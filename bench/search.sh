#!/usr/bin/env bash
# Smith-Waterman database search: `seqfarm search` against parasail's
# sw_striped_profile_sat (the Debian libparasail, through bench/parasail_search.c, built
# here and linked only into that helper) on the classic query set, at 1 and 2 threads.
#
# usage: bench/search.sh [DATABASE.fa[.gz]]   (default: $SEQFARM_BENCH_DATA/swissprot2014.faa.gz)
#        THREADS="1 2" QUERIES="P02232 P07327" bench/search.sh   to run a subset
#
# Both tools read the same uncompressed FASTA (decompressed once next to the database).
# seqfarm's time is its whole scan (reading and parsing the database included), as it
# reports it on stderr; parasail's is its alignment loop only (reading not timed). GCUPS
# = query length x database residues / seconds. The sums of all scores of the two tools
# are compared for every query: a benchmark of wrong answers is worthless.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}
database=${1:-$data/swissprot2014.faa.gz}
threads=${THREADS:-"1 2"}
queries=(${QUERIES:-P02232 P01111 P07327 P01008 P04775 P19096 P28167 P20930 Q9UKN1})
for tool in cc awk gzip; do
  command -v "$tool" >/dev/null || { echo "bench/search.sh: needs $tool" >&2; exit 1; }
done
[ -f /usr/include/parasail.h ] || { echo "bench/search.sh: needs libparasail-dev" >&2; exit 1; }
[ -f "$database" ] || { echo "bench/search.sh: no database $database (see ../shared/data/make-swissprot2014.sh)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

plain=$database
if [[ "$database" == *.gz ]]; then
  plain=${database%.gz}
  [ -f "$plain" ] || gzip -dc "$database" > "$plain"
fi

# The queries, by accession (the first word of the header).
awk -v ids="${queries[*]}" -v dir="$work" '
  BEGIN { n = split(ids, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
  /^>/ { id = substr($1, 2); sub(/^(sp|tr)\|/, "", id); sub(/\|.*/, "", id); out = (id in want) ? dir "/" id ".fa" : "" }
  out != "" { print > out }' "$plain"
for q in "${queries[@]}"; do
  [ -s "$work/$q.fa" ] || { echo "bench/search.sh: query $q not in $plain" >&2; exit 1; }
  cat "$work/$q.fa" >> "$work/queries.fa"
done

cargo build --release --quiet
seqfarm=target/release/seqfarm
cc -O3 -fopenmp bench/parasail_search.c -lparasail -o "$work/parasail_search"

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
echo "# database: $plain"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %6s %3s  %9s %8s  %9s %8s  %7s  %s\n' query length thr seqfarm_s GCUPS parasail_s GCUPS ratio scores
for t in $threads; do
  "$work/parasail_search" "$work/queries.fa" "$plain" sw_striped_profile_sat "$t" > "$work/parasail.$t.tsv"
  for q in "${queries[@]}"; do
    "$seqfarm" search -t "$t" --scores-only --force -o "$work/scores.tsv" "$work/$q.fa" "$plain" 2> "$work/report.txt"
    ours_s=$(sed -n 's/.* in \([0-9.]*\) s: .*/\1/p' "$work/report.txt")
    ours_g=$(sed -n 's/.* s: \([0-9.]*\) GCUPS.*/\1/p' "$work/report.txt")
    ours_sum=$(awk '{ s += $3 } END { printf "%d", s }' "$work/scores.tsv")
    read -r length theirs_s theirs_g theirs_sum < <(awk -v q="$q" '$1 == q { print $2, $3, $4, $5 }' "$work/parasail.$t.tsv")
    same=$([ "$ours_sum" = "$theirs_sum" ] && echo equal || echo "DIFFER ($ours_sum vs $theirs_sum)")
    ratio=$(awk -v a="$ours_g" -v b="$theirs_g" 'BEGIN { printf "%.2f", a / b }')
    printf '%-8s %6s %3s  %9s %8s  %9s %8s  %7s  %s\n' "$q" "$length" "$t" "$ours_s" "$ours_g" "$theirs_s" "$theirs_g" "$ratio" "$same"
  done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
