#!/usr/bin/env bash
# seqfarm's MAPQ on the simulated sets of bench/align.sh, for comparing two builds: per
# set, % of reads (mates) correct and the share of them / wrong ones at MAPQ >= 20 (as
# bench/align_eval.awk counts them), the same pooled over all the sets, then the
# calibration per MAPQ band pooled over all the sets (bench/mapq_calibration.py).
#
#   bench/align-calibration.sh                  # the paired sets: chr20 athal celegans, mason seeds 17 18 19
#   SETS=single bench/align-calibration.sh      # the single-end sets: same genomes, 150 and 100 bp, seed 11
#   SEQFARM=/path/to/older/seqfarm bench/align-calibration.sh
#
# The sets (and the genomes' indexes) must exist: run bench/align.sh first (`MODE=paired
# PE_SEED=S` for the paired sets). Environment: SETS (paired), THREADS (2), GENOMES,
# SEEDS (paired), LENGTHS (single), SEQFARM (a seqfarm binary to run instead of this
# checkout's release build, e.g. an older revision).
source "$(dirname "$0")/simulated-sets.sh"

echo "| set | correct % | MAPQ>=20 % / wrong |"
echo "|---|---:|---|"
pooled=()
# Aligns one set (name $1, truth $2, then seqfarm's input options) and prints its row.
align_set() {
  local name=$1 truth=$2 out=$tmp/${#pooled[@]}.sam
  shift 2
  "$SEQFARM" align -p "$threads" "$@" -S "$out" 2>/dev/null
  awk -f "$repo/bench/align_eval.awk" "$truth" "$out" | tee -a "$tmp/totals" |
    awk -F'\t' -v set="$name" '{ printf "| %s | %.3f | %.2f / %d |\n", set, $2, $7, $8 }'
  pooled+=("$truth" "$out")
}
for g in ${GENOMES:-chr20 athal celegans}; do
  if [ "${SETS:-paired}" = single ]; then
    for len in ${LENGTHS:-150 100}; do
      base=$work/$g.$len.100000
      align_set "$g, $len bp" "$base.truth.sam" -x "$work/$g" -U "$base.fq"
    done
  else
    for seed in ${SEEDS:-17 18 19}; do
      base=$(set_base "$g" "$seed")
      align_set "$g, seed $seed" "$base.truth.sam" -x "$work/$g" -1 "$base.1.fq" -2 "$base.2.fq"
    done
  fi
done
awk -F'\t' '{ n += $1; c += $1 * $2; q += $1 * $7; w += $8; sets++ }
  END { printf "| all %d sets | %.3f | %.2f / %d |\n", sets, c / n, q / n, w }' "$tmp/totals"
echo
python3 "$repo/bench/mapq_calibration.py" "${pooled[@]}" "seqfarm, all sets"
