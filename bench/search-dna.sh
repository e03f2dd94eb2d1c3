#!/usr/bin/env bash
# DNA database search on both strands: `seqfarm search --dna --strand both` against
# parasail's striped DNA kernel (the Debian libparasail, through bench/parasail_search.c
# --dna, built here and linked only into that helper): 100 queries of 1,000 bp against a
# genome set of about 100 Mbp, at 1 and 2 threads, one run per tool and thread count.
#
# usage: bench/search-dna.sh [GENOME.fa.gz ...]
#          default: ../shared/data/genomes/{human_GRCh37_chr20.fa.gz (63.0 Mbp),
#          Athaliana_TAIR10_chr1.fna.gz (30.4), Ecoli_K12_MG1655.fa.gz (4.6),
#          Mtuberculosis_H37Rv.fna.gz (4.4)} = 102.5 Mbp
#        QUERIES=10 THREADS="2" bench/search-dna.sh   fewer queries, other thread counts
#        TOOLS=parasail bench/search-dna.sh           one tool only (seqfarm, parasail)
#        SEQFARM=path/to/seqfarm bench/search-dna.sh  another seqfarm build (default: built here)
#
# The genome set is the genomes uncompressed, upper-cased (soft-masked repeats are plain
# bases to both tools), in one FASTA: $SEQFARM_BENCH_DATA (default /tmp/seqfarm-bench)/
# search-dna-genomes-KEY.fa, KEY a checksum of the genome file names; built once, reused.
# Queries: 100 windows of the genome set without N, drawn with a fixed seed (the same
# queries on every run and machine), each mutated (2% substitutions, two indels of 1-3 bp),
# cut to 1,000 bp, every second one reverse-complemented, so that both strands have true
# hits. QUERIES=N takes the first N of them: GCUPS is a rate, so a subset measures the
# same speed (parasail takes about 30 minutes for the 100 queries at 1 thread, 15 at 2,
# on a 2-core Zen 3).
#
# Scoring: match 2, mismatch -3, gaps 5/2 (BLASTN's defaults for -task blastn; a gap of
# length k costs 5 + 2k, which is parasail's open 7, extend 2).
#   seqfarm s: its scan as it reports it on stderr (reading and parsing the genome set
#     included); parasail s: its alignment loop only (reading not timed).
#   GCUPS = 2 strands x query residues x genome-set residues / seconds; cpuGCUPS = the
#     same cells / CPU seconds of that span (all threads), i.e. per busy core.
#   ratio = parasail s / seqfarm s; cpu = the same with CPU seconds, robust to other
#     processes taking the cores.
# Parasail at its best: sw_striped_profile_sat (8-bit lanes, rescored with 16-bit lanes
# where the score saturates) was faster than sw_striped_profile_16 (4 queries, 1 thread,
# 2-core AMD EPYC Zen 3, AVX2: 14.5 against 11.1 GCUPS per busy core, whole sequences;
# PARASAIL_FUNCTION=sw_striped_profile_16 to compare), and aligning sequences longer than
# 1 Mbp in overlapping 1 Mbp windows faster than whole (18.0 against 16.1 GCUPS per busy
# core, same scores: every query's own chromosome, and human chr20 for any query with a
# repeat, saturates 8 bits and is rescored at 16 bits, a window rather than 63 Mbp;
# PARASAIL_WINDOW=0 for whole sequences). parasail aligns the query and its reverse
# complement to each window; its score for a (query, sequence) pair is the best over
# strands and windows. seqfarm's --scores-only line for a pair is the best of the two
# strands as well (the best over a sequence's fragments and strands, if it writes several
# lines for a pair). The sums of those per-pair scores of the two tools are compared:
# benchmarks of wrong answers are worthless.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}
threads=${THREADS:-"1 2"}
count=${QUERIES:-100}
tools=${TOOLS:-"seqfarm parasail"}
function=${PARASAIL_FUNCTION:-sw_striped_profile_sat}
window=${PARASAIL_WINDOW:-1000000}
shared=../shared/data/genomes
if [ $# -gt 0 ]; then
  genomes=("$@")
else
  genomes=("$shared/human_GRCh37_chr20.fa.gz" "$shared/Athaliana_TAIR10_chr1.fna.gz"
           "$shared/Ecoli_K12_MG1655.fa.gz" "$shared/Mtuberculosis_H37Rv.fna.gz")
fi
for tool in cc awk gzip python3 /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench/search-dna.sh: needs $tool" >&2; exit 1; }
done
[ -f /usr/include/parasail.h ] || { echo "bench/search-dna.sh: needs libparasail-dev" >&2; exit 1; }
for g in "${genomes[@]}"; do
  [ -f "$g" ] || { echo "bench/search-dna.sh: no genome $g" >&2; exit 1; }
done
[ "$count" -ge 1 ] && [ "$count" -le 100 ] || { echo "bench/search-dna.sh: QUERIES must be 1 to 100" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$data"

# The genome set: one FASTA, upper case, built once per list of genome files.
key=$(printf '%s\n' "${genomes[@]##*/}" | cksum | cut -d' ' -f1)
genome_set=$data/search-dna-genomes-$key.fa
if [ ! -s "$genome_set" ]; then
  for g in "${genomes[@]}"; do
    gzip -dcf "$g"
  done | awk '/^>/ { print; next } { print toupper($0) }' > "$genome_set.tmp"
  mv "$genome_set.tmp" "$genome_set"
fi

# The queries (all 100 drawn, the first QUERIES kept, so a subset is a prefix of the set).
python3 - "$genome_set" "$count" > "$work/queries.fa" <<'PY'
import random
import re
import sys

path, keep = sys.argv[1], int(sys.argv[2])
names, seqs, parts = [], [], None
with open(path) as f:
    for line in f:
        if line.startswith(">"):
            parts = []
            names.append(re.sub(r"[^A-Za-z0-9.]+", "_", line[1:].split()[0]).strip("_"))
            seqs.append(parts)
        else:
            parts.append(line.strip())
seqs = ["".join(p) for p in seqs]
total = sum(len(s) for s in seqs)
rng = random.Random(16)  # random() alone: its sequence is fixed across Python versions


def below(n):
    return int(rng.random() * n)


def random_base(other_than=""):
    while True:
        b = "ACGT"[below(4)]
        if b != other_than:
            return b


complement = str.maketrans("ACGT", "TGCA")
length, margin = 1000, 40
for i in range(100):
    while True:
        at = below(total)
        k = 0
        while at >= len(seqs[k]):
            at -= len(seqs[k])
            k += 1
        window = seqs[k][at:at + length + margin]
        if len(window) == length + margin and not set(window) - set("ACGT"):
            break
    bases = [random_base(b) if rng.random() < 0.02 else b for b in window]
    for _ in range(2):
        p, n = 10 + below(length - 20), 1 + below(3)
        if rng.random() < 0.5:
            del bases[p:p + n]
        else:
            bases[p:p] = [random_base() for _ in range(n)]
    query = "".join(bases[:length])
    strand = "plus"
    if i % 2:
        query, strand = query.translate(complement)[::-1], "minus"
    if i < keep:
        print(f">q{i + 1:03d}_{names[k]}_{at + 1}_{strand}")
        print(query)
PY

cc -O3 -fopenmp bench/parasail_search.c -lparasail -o "$work/parasail_search"
seqfarm=${SEQFARM:-target/release/seqfarm}
if [[ " $tools " == *" seqfarm "* ]]; then
  [ -n "${SEQFARM:-}" ] || cargo build --release --quiet -p seqfarm-cli
  if ! "$seqfarm" search --help | grep -q -- '--strand'; then
    echo "bench/search-dna.sh: this seqfarm has no --strand; TOOLS=parasail times parasail alone" >&2
    exit 1
  fi
fi
residues=$(awk '!/^>/ { n += length($0) } END { printf "%d", n }' "$genome_set")
sequences=$(grep -c '^>' "$genome_set")
query_residues=$(awk '!/^>/ { n += length($0) } END { printf "%d", n }' "$work/queries.fa")

# Per-pair best score (the max over a pair's lines), summed: `qseqid sseqid score` lines.
pair_sum() { awk '{ k = $1 "\t" $2; if (!(k in m) || $3 > m[k]) m[k] = $3 } END { for (k in m) s += m[k]; printf "%d", s }' "$1"; }

simd=$(grep -m1 '^flags' /proc/cpuinfo | grep -qw avx512bw && echo AVX-512BW ||
       { grep -m1 '^flags' /proc/cpuinfo | grep -qw avx2 && echo AVX2 || echo "no AVX2"; })
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $simd"
echo "# genome set: $genome_set ($sequences sequences, $residues residues)"
echo "# queries: $count x 1,000 bp ($query_residues residues), both strands; parasail: $function, window $window"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%3s | %9s %8s %8s | %10s %8s %8s | %5s %5s | %s\n' \
  thr seqfarm_s GCUPS cpuGCUPS parasail_s GCUPS cpuGCUPS ratio cpu scores
for t in $threads; do
  ours_s=NA ours_cpu=NA ours_sum=NA theirs_s=NA theirs_cpu=NA theirs_sum=NA
  if [[ " $tools " == *" seqfarm "* ]]; then
    /usr/bin/time -f '%U %S' -o "$work/cpu.txt" \
      "$seqfarm" search --dna --strand both --match 2 --mismatch -3 --gap-open 5 --gap-extend 2 \
        --scores-only -t "$t" --force -o "$work/seqfarm.tsv" "$work/queries.fa" "$genome_set" \
      2> "$work/seqfarm.err" || { cat "$work/seqfarm.err" >&2; exit 1; }
    ours_s=$(sed -n 's/.* in \([0-9.]*\) s: .*/\1/p' "$work/seqfarm.err")
    ours_cpu=$(awk '{ print $1 + $2 }' "$work/cpu.txt")
    ours_sum=$(pair_sum "$work/seqfarm.tsv")
  fi
  if [[ " $tools " == *" parasail "* ]]; then
    "$work/parasail_search" --dna "$work/queries.fa" "$genome_set" "$function" "$t" 7 2 2 -3 "$window" \
      > "$work/parasail.tsv" 2> "$work/parasail.err" || { cat "$work/parasail.err" >&2; exit 1; }
    theirs_s=$(sed -n 's/.* in \([0-9.]*\) s: .*/\1/p' "$work/parasail.err")
    theirs_cpu=$(sed -n 's/.* GCUPS, \([0-9.]*\) CPU s.*/\1/p' "$work/parasail.err")
    theirs_sum=$(pair_sum "$work/parasail.tsv")
  fi
  if [ "$ours_sum" = NA ] || [ "$theirs_sum" = NA ]; then
    check="one tool, score sum ${ours_sum/NA/}${theirs_sum/NA/}"
  elif [ "$ours_sum" = "$theirs_sum" ]; then
    check="equal (sum $ours_sum)"
  else
    check="DIFFER (seqfarm $ours_sum, parasail $theirs_sum)"
    echo "# first pairs whose best scores differ (query, sequence, seqfarm, parasail):" >&2
    awk 'FNR == NR { k = $1 "\t" $2; if (!(k in m) || $3 > m[k]) m[k] = $3; next }
         m[$1 "\t" $2] != $3 { print $1, $2, m[$1 "\t" $2], $3 }' \
      "$work/seqfarm.tsv" "$work/parasail.tsv" | head -5 >&2
  fi
  awk -v t="$t" -v cells="$(( 2 * query_residues ))" -v res="$residues" -v os="$ours_s" \
      -v oc="$ours_cpu" -v ts="$theirs_s" -v tc="$theirs_cpu" -v check="$check" '
    function rate(s) { return s == "NA" ? "NA" : sprintf("%.2f", cells * res / s / 1e9) }
    function ratio(a, b) { return (a == "NA" || b == "NA") ? "NA" : sprintf("%.2f", a / b) }
    BEGIN {
      printf "%3d | %9s %8s %8s | %10s %8s %8s | %5s %5s | %s\n", t, os, rate(os), rate(oc),
        ts, rate(ts), rate(tc), ratio(ts, os), ratio(tc, oc), check }'
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
