#!/usr/bin/env bash
# The first mates of the simulated paired sets of bench/align.sh, aligned single-end by
# seqfarm and bwa mem: reads that played no part in calibrating seqfarm's single-end
# MAPQ. Prints, per set, % correct and the share of reads / wrong ones at MAPQ >= 20
# (as bench/align_eval.awk counts them), then seqfarm's MAPQ calibration per band.
#
#   bench/align-first-mates.sh                   # chr20 athal celegans, mason seeds 17 18 19
#   GENOMES=chr20 SEEDS=17 bench/align-first-mates.sh
#
# The sets (and the genomes' indexes) must exist: run `MODE=paired PE_SEED=S
# bench/align.sh` first. Environment: THREADS (2), GENOMES, SEEDS, SEQFARM (a seqfarm
# binary to run instead of this checkout's release build, e.g. an older revision).
source "$(dirname "$0")/simulated-sets.sh"
# Single-end names: the /1 suffix dropped, as bwa mem drops it.
strip_mate() { awk 'BEGIN { OFS = "\t" } /^@/ { print; next } { sub(/\/1$/, "", $1); print }'; }

echo "| set | tool | correct % | MAPQ>=20 % / wrong |"
echo "|---|---|---:|---|"
for g in ${GENOMES:-chr20 athal celegans}; do
  for seed in ${SEEDS:-17 18 19}; do
    base=$(set_base "$g" "$seed")
    # The truth of the first mates as single reads: strand and unplaced kept, pairing
    # flags dropped.
    awk 'BEGIN { OFS = "\t" } /^@/ { print; next }
      int($2 / 64) % 2 == 1 { $2 = int($2 / 16) % 2 * 16 + int($2 / 4) % 2 * 4; print }' \
      "$base.truth.sam" > "$tmp/truth.sam"
    "$SEQFARM" align -p "$threads" -x "$work/$g" -U "$base.1.fq" 2>/dev/null | strip_mate > "$tmp/seqfarm.sam"
    bwa mem -t "$threads" "$work/$g.bwa" "$base.1.fq" 2>/dev/null | strip_mate > "$tmp/bwa-mem.sam"
    for tool in seqfarm bwa-mem; do
      awk -f "$repo/bench/align_eval.awk" "$tmp/truth.sam" "$tmp/$tool.sam" |
        awk -F'\t' -v set="$g, seed $seed" -v tool="$tool" '{ printf "| %s | %s | %.3f | %.2f / %d |\n", set, tool, $2, $7, $8 }'
    done
    python3 "$repo/bench/mapq_calibration.py" "$tmp/truth.sam" "$tmp/seqfarm.sam" "seqfarm, $g seed $seed" > "$tmp/calibration.$g.$seed.md"
  done
done
echo
cat "$tmp"/calibration.*.md
