#!/usr/bin/env bash
# `seqfarm search` on databases of few chunks or long records, two builds side by side
# (bench/search-scores-only.sh does the timing: median wall seconds, peak memory, scan
# GCUPS, whether the builds wrote the same bytes). The sets:
#   proteins-1chunk    500 UniProt queries x the first 1,000 E. coli proteins (414 KB)
#   proteins-2chunks   500 UniProt queries x the 4,136 E. coli proteins (1.7 MB)
#   dna-genome         40 DNA queries x the E. coli genome (one record of 4.6 Mbp)
#   dna-contigs        40 DNA queries x the same genome as 47 records of 100 kb
# The 500 queries are the MMseqs2 UniProt sample's QUERY.fasta.gz; the 40 DNA queries are
# 1,000 bp windows of the E. coli genome with 30 random substitutions each (Python's
# random, seed 1: the same queries on every run).
#
# usage: SEQFARM=after BASELINE=before bench/search-few-records.sh [SET ...]
#        (default: all four sets)
# env:   THREADS (default "1 2"), RUNS (default 3), OUTPUTS (default "report scores-only"),
#        SEQFARM_SHARED_DATA (default ../shared/data), SEQFARM_BENCH_DATA (where the inputs
#        are written, default /tmp/seqfarm-bench)
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SEQFARM_SHARED_DATA:-../shared/data}
data=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}/search-few-records
mkdir -p "$data"
sets=("$@")
[ ${#sets[@]} -gt 0 ] || sets=(proteins-1chunk proteins-2chunks dna-genome dna-contigs)
proteome=$shared/proteins/Ecoli_K12_proteome_openms/Ecoli_K12_proteome_targets.faa.gz
genome=$shared/genomes/Ecoli_K12_MG1655.fa.gz

[ -s "$data/q500.fa" ] || gzip -dc "$shared/proteins/mmseqs2_uniprot_sample/QUERY.fasta.gz" > "$data/q500.fa"
[ -s "$data/ecoli1000.fa" ] || gzip -dc "$proteome" | awk '/^>/ { n++ } n <= 1000' > "$data/ecoli1000.fa"
[ -s "$data/ecoli.fa" ] || gzip -dc "$genome" > "$data/ecoli.fa"
[ -s "$data/dnaq.fa" ] || python3 - "$data/ecoli.fa" > "$data/dnaq.fa" <<'PY'
import random, sys
random.seed(1)
seq = "".join(l.strip() for l in open(sys.argv[1]) if l[0] != ">")
for i in range(40):
    p = random.randrange(len(seq) - 1000)
    s = list(seq[p:p + 1000])
    for j in range(30):
        s[random.randrange(1000)] = random.choice("ACGT")
    print(f">q{i}")
    print("".join(s))
PY
[ -s "$data/ecoli_contigs.fa" ] || awk '/^>/ { next } { printf "%s", $0 }' "$data/ecoli.fa" \
  | fold -w 100000 | awk '{ printf ">contig%d\n", NR; print }' | fold -w 80 > "$data/ecoli_contigs.fa"

for set in "${sets[@]}"; do
  case $set in
    proteins-1chunk) inputs=("$data/q500.fa" "$data/ecoli1000.fa") options= ;;
    proteins-2chunks) inputs=("$data/q500.fa" "$proteome") options= ;;
    dna-genome) inputs=("$data/dnaq.fa" "$genome") options=--dna ;;
    dna-contigs) inputs=("$data/dnaq.fa" "$data/ecoli_contigs.fa") options=--dna ;;
    *) echo "bench/search-few-records.sh: unknown set $set" >&2; exit 1 ;;
  esac
  for t in ${THREADS:-1 2}; do
    for out in ${OUTPUTS:-report scores-only}; do
      echo "## $set, $out, $t threads"
      THREADS=$t OUTPUT=$out OPTIONS=$options RUNS=${RUNS:-3} bench/search-scores-only.sh "${inputs[@]}"
    done
  done
done
