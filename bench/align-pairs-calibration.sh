#!/usr/bin/env bash
# seqfarm's MAPQ on the simulated paired sets of bench/align.sh, for comparing two
# builds: per set, % of mates correct and the share of mates / wrong ones at MAPQ >= 20
# (as bench/align_eval.awk counts them), then the calibration per MAPQ band pooled over
# all the sets (bench/mapq_calibration.py).
#
#   bench/align-pairs-calibration.sh                   # chr20 athal celegans, mason seeds 17 18 19
#   SEQFARM=/path/to/older/seqfarm bench/align-pairs-calibration.sh
#
# The sets (and the genomes' indexes) must exist: run `MODE=paired PE_SEED=S
# bench/align.sh` first. Environment: THREADS (2), GENOMES, SEEDS, SEQFARM (a seqfarm
# binary to run instead of this checkout's release build, e.g. an older revision).
source "$(dirname "$0")/simulated-sets.sh"

echo "| set | correct % | MAPQ>=20 % / wrong |"
echo "|---|---:|---|"
pooled=()
for g in ${GENOMES:-chr20 athal celegans}; do
  for seed in ${SEEDS:-17 18 19}; do
    base=$(set_base "$g" "$seed")
    out=$tmp/$g.$seed.sam
    "$SEQFARM" align -p "$threads" -x "$work/$g" -1 "$base.1.fq" -2 "$base.2.fq" -S "$out" 2>/dev/null
    awk -f "$repo/bench/align_eval.awk" "$base.truth.sam" "$out" |
      awk -F'\t' -v set="$g, seed $seed" '{ printf "| %s | %.3f | %.2f / %d |\n", set, $2, $7, $8 }'
    pooled+=("$base.truth.sam" "$out")
  done
done
echo
python3 "$repo/bench/mapq_calibration.py" "${pooled[@]}" "seqfarm, all sets"
