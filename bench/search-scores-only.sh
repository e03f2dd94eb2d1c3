#!/usr/bin/env bash
# `seqfarm search --scores-only` with many queries: a score for every query against every
# database sequence, one line each (or, with OUTPUT=report, the default output: each
# query's best hits in BLAST's tabular format, every reported alignment aligned again
# with traceback). Times one build, or two side by side (BASELINE), on the same input,
# the runs alternating, and prints per build the median wall seconds, the peak resident
# memory, the median GCUPS seqfarm reports (the scan's), and whether the two builds wrote
# the same bytes.
#
# usage: bench/search-scores-only.sh [QUERIES.fa DATABASE.fa[.gz]]
#        (default: the first 150 queries of the MMseqs2 UniProt sample in
#        $SEQFARM_SHARED_DATA/proteins/mmseqs2_uniprot_sample against its 20,000 sequences)
# env:   SEQFARM (the build to time; default: cargo build --release), BASELINE (a build to
#        time beside it), THREADS (default: all cores), RUNS (default 3), OUTPUT
#        (scores-only, the default, or report), SSEARCH (with OUTPUT=report: 1 times
#        ssearch36 of the FASTA package beside, exhaustive Smith-Waterman with the same
#        scoring, its 10 best per query in BLAST's tabular format; its own statistics, so
#        its hits are not compared), OPTIONS (more options for both builds, e.g.
#        OPTIONS=--dna for a nucleotide search), SEQFARM_SHARED_DATA (default ../shared/data)
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SEQFARM_SHARED_DATA:-../shared/data}
threads=${THREADS:-$(nproc)}
runs=${RUNS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ $# -ge 2 ]; then
  queries=$1 database=$2
else
  sample=$shared/proteins/mmseqs2_uniprot_sample
  [ -f "$sample/DB.fasta.gz" ] || {
    echo "bench/search-scores-only.sh: no $sample; give QUERIES.fa DATABASE.fa" >&2; exit 1; }
  queries=$work/queries.fa
  gzip -dc "$sample/QUERY.fasta.gz" | awk '/^>/ { n++ } n <= 150' > "$queries"
  database=$sample/DB.fasta.gz
fi
if [ -z "${SEQFARM:-}" ]; then
  cargo build --release --quiet
  SEQFARM=target/release/seqfarm
fi
case ${OUTPUT:-scores-only} in
  scores-only) output=(--scores-only) ;;
  report) output=() ;;
  *) echo "bench/search-scores-only.sh: OUTPUT must be scores-only or report" >&2; exit 1 ;;
esac
read -r -a options <<< "${OPTIONS:-}"
builds=("$SEQFARM")
[ -z "${BASELINE:-}" ] || builds=("$BASELINE" "$SEQFARM")

echo "# $(date -u +%FT%H:%MZ) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(grep -o -m1 -w 'avx512bw' /proc/cpuinfo || echo avx2); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $(grep -c '^>' "$queries") queries ($queries) against $database; output ${OUTPUT:-scores-only}${OPTIONS:+; options $OPTIONS}; $threads threads; $runs runs per build, alternating"
for run in $(seq "$runs"); do
  for i in "${!builds[@]}"; do
    /usr/bin/time -f "%e %M" -o "$work/time" "${builds[$i]}" search --force ${output[@]+"${output[@]}"} ${options[@]+"${options[@]}"} \
      -t "$threads" -o "$work/out$i.txt" "$queries" "$database" 2> "$work/stderr"
    gcups=$(sed -n 's/.* \([0-9.]*\) GCUPS.*/\1/p' "$work/stderr")
    echo "$i $(cat "$work/time") $gcups" >> "$work/runs"
  done
done
if [ "${SSEARCH:-}" = 1 ] && [ "${OUTPUT:-}" = report ]; then
  command -v ssearch36 >/dev/null || { echo "bench/search-scores-only.sh: needs ssearch36 (Debian fasta3)" >&2; exit 1; }
  plain=$database
  case "$database" in *.gz) plain=$work/db.fa; gzip -dc "$database" > "$plain" ;; esac
  for run in $(seq "$runs"); do
    /usr/bin/time -f "%e %M" -o "$work/time" ssearch36 -q -m 8 -T "$threads" -s BL62 -f -11 \
      -g -1 -b 10 -E 10 "$queries" "$plain" > "$work/ssearch.txt" 2> /dev/null
    echo "ssearch $(cat "$work/time") -" >> "$work/runs"
  done
fi
same=-
[ ${#builds[@]} -eq 1 ] || { cmp -s "$work/out0.txt" "$work/out1.txt" && same=yes || same=NO; }

# The median of column $2 of build $1's runs.
median() { awk -v b="$1" -v c="$2" '$1 == b { print $c }' "$work/runs" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "| build | wall s (median) | peak RSS MB | GCUPS (median) | vs first | same bytes |"
echo "|---|---:|---:|---:|---:|---|"
first=$(median 0 2)
for i in "${!builds[@]}"; do
  wall=$(median "$i" 2)
  rss=$(awk -v b="$i" '$1 == b && $3 > m { m = $3 } END { printf "%.0f", m / 1024 }' "$work/runs")
  echo "| ${builds[$i]} | $wall | $rss | $(median "$i" 4) | $(awk -v a="$first" -v b="$wall" 'BEGIN { printf "%.2fx", a / b }') | $same |"
done
if grep -q '^ssearch ' "$work/runs"; then
  wall=$(median ssearch 2)
  rss=$(awk '$1 == "ssearch" && $3 > m { m = $3 } END { printf "%.0f", m / 1024 }' "$work/runs")
  echo "| ssearch36 $(dpkg-query -W -f '${Version}' fasta3 2>/dev/null) | $wall | $rss | - | $(awk -v a="$first" -v b="$wall" 'BEGIN { printf "%.2fx", a / b }') | - |"
fi
