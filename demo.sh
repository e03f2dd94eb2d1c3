#!/usr/bin/env bash
# Builds seqfarm and runs each command on the example data bundled in tests/data.
set -euo pipefail
cd "$(dirname "$0")"
./debian-packages.sh libisal-dev libhts-dev
cargo build --release --quiet
sf=target/release/seqfarm
data=tests/data
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

"$sf" --version

# flagstat: samtools-identical FLAG statistics, parallel through the BAM index.
step "$sf" flagstat -t 2 "$data/bam/chm1.bam"
step "$sf" flagstat -O tsv "$data/bam/sarscov2.bam"
# CRAM input (3.0, its reference embedded): 60 kb of the normal slice's reads.
step "$sf" flagstat -t 2 "$data/cram/normal_slice.cram"

# Index a small genome (E. coli and human chr20 pieces; chr20 starts with 60 kbp of N) and
# look up a few patterns on both strands.
step "$sf" index -t 2 -o "$out/piece" "$data/index_ref.fa.gz"
step "$sf" index --check "$out/piece"
# The same index in a tight memory budget: more sort buckets, the same file byte for byte.
step "$sf" index -t 2 --memory 24M -o "$out/piece-24M" "$data/index_ref.fa.gz"
step cmp "$out/piece.sfi" "$out/piece-24M.sfi"
step "$sf" locate -x "$out/piece" --max-hits 5 AGCTTTTCATTCTGACTGCAACGG GGATCC NNNNNNNNNN

# snp-pileup: FACETS snp-pileup's allele counts, byte for byte, on a tumor/normal slice;
# --plot draws the B-allele fractions and the tumour/normal log ratio along the genome.
step "$sf" snp-pileup -t 2 -q15 -Q20 -P100 -r10,0 "$data/snp-pileup/sites_slice.vcf.gz" \
  "$out/pileup.csv" "$data/snp-pileup/normal_slice.bam" "$data/snp-pileup/tumor_slice.bam" \
  --plot "$out/pileup.svg"
step head -5 "$out/pileup.csv"

# count: reads per 20 kb window in both BAMs, as bedtools multicov counts them (and drawn,
# with the log2 ratio of the second BAM to the first).
step "$sf" count -t 2 --window 20000 -o "$out/windows.tsv" --plot "$out/windows.svg" \
  "$data/snp-pileup/normal_slice.bam" "$data/snp-pileup/tumor_slice.bam"
step awk '$4 + $5 > 0' "$out/windows.tsv"

# depth: mosdepth's mean depth per 20 kb window and bases at >= 1, 10, 20x (its files).
step "$sf" depth -t 2 --window 20000 -T 1,10,20 -o "$out/depth" --plot "$out/depth.svg" \
  "$data/snp-pileup/normal_slice.bam"
step sh -c "zcat '$out/depth.thresholds.bed.gz' | awk 'NR == 1 || \$5 > 0' | head -4"

# Smith-Waterman search: 10 UniProt queries against 1,500 UniProt sequences, 2 best hits each.
# --gpu=auto scores on an NVIDIA GPU where there is one (the same hits), else on the CPU.
step "$sf" search --gpu=auto --top 2 "$data/sw_q10.fa" "$data/sw_db1500.fa.gz"
# DNA on both strands, as blastn: queries from E. coli and M. tuberculosis pieces, half of
# them reverse-complemented (minus-strand hits: sstart > send); chosen columns, the best
# hit and its best alignment per query, E-value at most 1e-20.
step "$sf" search --dna --top 1 --max-hsps 1 --evalue 1e-20 \
  --outfmt "6 qseqid sseqid sstrand pident length qstart qend sstart send evalue qcovhsp" \
  "$data/search_dna_q.fa" "$data/search_dna_db.fa.gz"

# Align simulated reads to the genome piece indexed above (end-to-end SAM, then local BAM).
# --stats writes where the farm's time went (docs/FARM.md), among it the scaling ceiling:
# how many workers one master could keep fed.
step "$sf" align -x "$out/piece" -U "$data/align_reads_150.fq.gz" -S "$out/reads.sam" -p 2 \
  --stats "$out/align-stats.json"
awk '!/^@/ && n++ < 3' "$out/reads.sam" | cut -f 1-9,12-
step grep -E '^  "(tasks|ceiling|efficiency)"' "$out/align-stats.json"
# --numa interleave: the index copied into memory interleaved over the NUMA nodes the
# workers run on (one node here: the same placement, the same output).
# --sort: a coordinate-sorted BAM and its .bai, as samtools sort and index would write.
step "$sf" align --local --numa interleave -x "$out/piece" -U "$data/align_reads_100.fq.gz" \
  -o "$out/reads.bam" --sort -p 2

# Paired-end: 4,000 simulated 2x150 pairs (fragments 400 +- 60) on the same genome piece,
# with a bowtie2 command line as pipelines write it; pairs that do not align concordantly
# go to a gzip FASTQ pair; --plot draws the MAPQ and insert-size histograms.
step "$sf" align -x "$out/piece" -1 "$data/pe_sim_R1.fq.gz" -2 "$data/pe_sim_R2.fq.gz" \
  -X 1000 --no-mixed -p 2 --un-conc-gz "$out/unconc.fq.gz" -S "$out/pairs.sam" \
  --plot "$out/pairs.svg"
awk '!/^@/ && n++ < 4' "$out/pairs.sam" | cut -f 1-9,12-

# Duplicates marked as Picard MarkDuplicates marks them (the same flags and metrics):
# a real CHM1 BAM, then the same pairs aligned, sorted, indexed and marked in one run.
step "$sf" markdup -t 2 "$data/bam/chm1.bam" -o "$out/chm1.marked.bam" -M "$out/chm1.metrics.txt"
awk '/^## METRICS/ {getline; print; getline; print}' "$out/chm1.metrics.txt" | cut -f 1-3,6-10
step "$sf" align -x "$out/piece" -1 "$data/pe_sim_R1.fq.gz" -2 "$data/pe_sim_R2.fq.gz" -p 2 \
  -o "$out/pairs.marked.bam" --sort --markdup --markdup-metrics "$out/pairs.metrics.txt"
step ls "$out"

# Python: the same jobs from the seqfarm package (built with maturin into target/py-venv,
# with pandas and dask from PyPI), and one alignment spread over a local Dask cluster of
# two worker processes, byte-identical to the command line's.
pyvenv=target/py-venv
[ -x "$pyvenv/bin/python" ] || python3 -m venv "$pyvenv"
"$pyvenv/bin/pip" install -q --disable-pip-version-check -r python/requirements-test.txt
PATH=$PWD/$pyvenv/bin:$PATH "$pyvenv/bin/pip" install -q --disable-pip-version-check \
  --no-build-isolation --force-reinstall --no-deps .
step "$pyvenv/bin/python" python/examples/demo.py "$out/piece" "$data" "$out"
