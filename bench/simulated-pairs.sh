# Sourced by the scripts that draw bench/align.sh's simulated pairs (bench/align.sh,
# bench/align-seeds.sh). Defines `draw_pairs FASTA VCF PAIRS SEED BASE`: PAIRS pairs of
# 2x150 bp, fragments 400 +- 60, from FASTA with the sample's variants VCF, drawn by
# mason with its seed SEED into BASE.1.fq, BASE.2.fq and the true alignments
# BASE.truth.sam.
draw_pairs() {
  /usr/lib/seqan/bin/mason_simulator -ir "$1" -iv "$2" -n "$3" \
    --illumina-read-length 150 --fragment-mean-size 400 --fragment-size-std-dev 60 \
    --illumina-prob-mismatch-scale 2.5 --seed "$4" \
    -o "$5.1.fq" -or "$5.2.fq" -oa "$5.truth.sam" -q >/dev/null 2>&1
}
