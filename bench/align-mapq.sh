#!/usr/bin/env bash
# Mapping quality of `seqfarm align` (bowtie2's model, its default) next to bowtie2's,
# on the same pairs: for the mates both tools place alike (same contig, position and
# strand), the share with the same MAPQ and the share a `samtools view -q 30` filter
# keeps or drops alike, then the mates whose MAPQ differs counted by cause
# (bench/mapq_agreement.py explains them). Real paired runs (CHM1, HIV-1 MiSeq,
# NA12878 chrM, with the reference shipped beside each) and simulated 2x150 pairs from
# human chr20. Prints a markdown table.
#
#   bench/align-mapq.sh [GENOME_DIR] [READS_DIR]
#
# GENOME_DIR and READS_DIR default to ../shared/data/genomes and ../shared/data/reads
# ($SEQFARM_SHARED_DATA overrides ../shared/data). Environment:
#   BOWTIE2   the bowtie2 to compare with (default `bowtie2` on the PATH; Debian 12's
#             2.5.0 runs no mate search for pairs, a bug 2.5.1 fixed, so point it at a
#             newer build's bowtie2-align-s for pairs as bowtie2 aligns them)
#   THREADS   threads of each tool (2)
#   PAIRS     simulated pairs (100000), PE_SEED mason's seed (17)
#   MODES     "end-to-end" (default) and/or "local"
#   SEQFARM   a prebuilt seqfarm (default: this checkout, built)
#   SELF      1 (default): also bowtie2 with another seed of its random generator
#             (`--seed 1`) against its default run, in rows of their own: how far
#             bowtie2 agrees with itself, the ceiling for another program; 0: not
# Generated data (indexes, simulated pairs) is kept under $SEQFARM_BENCH_DATA/align
# (default /tmp/seqfarm-bench/align) and shared with bench/align.sh.
# Needs: bowtie2, seqan-apps (mason), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
shared=${SEQFARM_SHARED_DATA:-$repo/../shared/data}
genomes_dir=${1:-$shared/genomes}
reads_dir=${2:-$shared/reads}
work=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}/align
threads=${THREADS:-2}
npairs=${PAIRS:-100000}
pe_seed=${PE_SEED:-17}
modes=${MODES:-end-to-end}
self=${SELF:-1}
bowtie2=${BOWTIE2:-bowtie2}
mason=/usr/lib/seqan/bin
mkdir -p "$work"
if [ -n "${SEQFARM:-}" ]; then
  sf=$SEQFARM
else
  cargo build --release --quiet
  sf=$repo/target/release/seqfarm
fi
. "$repo/bench/simulated-pairs.sh"

# FASTA (plain or gzip) into PREFIX.fa, indexed by both tools (PREFIX.sfi, PREFIX.bt2.*).
index_both() {
  local fasta=$1 prefix=$2
  [ -s "$prefix.fa" ] || { if [[ $fasta == *.gz ]]; then zcat "$fasta"; else cat "$fasta"; fi; } > "$prefix.fa"
  { [ -s "$prefix.sfi" ] && "$sf" locate -x "$prefix" --max-hits 0 ACGT >/dev/null 2>&1; } ||
    "$sf" index -t "$threads" -o "$prefix" "$prefix.fa" >/dev/null 2>&1
  [ -s "$prefix.bt2.1.bt2" ] || bowtie2-build --threads "$threads" "$prefix.fa" "$prefix.bt2" >/dev/null 2>&1
}

# One table row per mode for the pairs R1 R2 against PREFIX.
compare() {
  local label=$1 prefix=$2 r1=$3 r2=$4 mode flag
  for mode in $modes; do
    flag=""
    [ "$mode" = local ] && flag=--local
    "$bowtie2" $flag -p "$threads" -x "$prefix.bt2" -1 "$r1" -2 "$r2" -S "$work/mapq.bowtie2.sam" 2>/dev/null
    "$sf" align $flag -p "$threads" -x "$prefix" -1 "$r1" -2 "$r2" -S "$work/mapq.seqfarm.sam" 2>/dev/null
    python3 "$repo/bench/mapq_agreement.py" "$work/mapq.bowtie2.sam" "$work/mapq.seqfarm.sam" "$label | $mode"
    [ "$self" = 1 ] || continue
    "$bowtie2" $flag --seed 1 -p "$threads" -x "$prefix.bt2" -1 "$r1" -2 "$r2" -S "$work/mapq.bowtie2-seed1.sam" 2>/dev/null
    python3 "$repo/bench/mapq_agreement.py" "$work/mapq.bowtie2.sam" "$work/mapq.bowtie2-seed1.sam" \
      "$label | $mode, bowtie2 --seed 1 (not seqfarm)"
  done
}

echo "# seqfarm align: MAPQ next to bowtie2's"
echo
. bench/machine.sh
cpu=$(machine)
echo "$(date -u +%Y-%m-%d), $(nproc) cores ($cpu), $threads threads"
echo "Versions: $("$sf" --version), bowtie2 $("$bowtie2" --version 2>/dev/null | head -1 | awk '{print $NF}')"
echo
echo "Placed alike: same contig, position and strand. Causes of a different MAPQ, first that applies: type (YT), score (AS), partner (YS), second (XS), pairs (the next concordant pair, which SAM does not show)."
echo
echo "| pairs | mode | mates placed alike | same MAPQ | same side of -q 30 | type | score | partner | second | pairs |"
echo "|---|---|---|---|---|---|---|---|---|---|"
# A real paired run: LABEL, its directory under READS_DIR, mate files, reference.
real_run() {
  local label=$1 dir=$reads_dir/$2
  index_both "$dir/$5" "$work/real.$2"
  compare "$label (real)" "$work/real.$2" "$dir/$3" "$dir/$4"
}
real_run CHM1 human_CHM1_chr1_100kb CHM1_R1.fq.gz CHM1_R2.fq.gz GRCh37_miniReference_chr1_chr2_100kb.fa.gz
real_run "HIV-1 MiSeq" HIV1_iva_miseq reads_1.fq.gz reads_2.fq.gz reference.fasta
real_run "NA12878 chrM" human_NA12878_chrM NA12878_chrM_R1.fq.gz NA12878_chrM_R2.fq.gz hg19_chrM_chrYtrunc.fa.gz
fa=$work/chr20.fa
[ -s "$fa" ] || zcat "$genomes_dir/human_GRCh37_chr20.fa.gz" > "$fa"
[ -s "$work/chr20.var.vcf" ] ||
  "$mason/mason_variator" -ir "$fa" -ov "$work/chr20.var.vcf" --snp-rate 0.001 \
    --small-indel-rate 0.0001 --seed 7 -q >/dev/null 2>&1
index_both "$fa" "$work/chr20"
base=$work/chr20.pe150.$npairs
[ "$pe_seed" = 17 ] || base=$base.seed$pe_seed
[ -s "$base.2.fq" ] || draw_pairs "$fa" "$work/chr20.var.vcf" "$npairs" "$pe_seed" "$base"
compare "chr20, $npairs simulated 2x150" "$work/chr20" "$base.1.fq" "$base.2.fq"
