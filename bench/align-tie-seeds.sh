#!/usr/bin/env bash
# How much of seqfarm's % correct on simulated pairs is the choice among equally good
# places: one read set of bench/align.sh (100,000 pairs of 2x150 bp) aligned again with
# several seeds of that choice (`--seed`, which changes nothing else), each run scored as
# bench/align_eval.awk scores it; then the mean, standard deviation and range over the
# seeds. A difference from another aligner smaller than that spread is the luck of the
# draw among identical repeat copies.
#
#   GENOME=athal SEED=18 TIE_SEEDS="$(seq 0 7)" bench/align-tie-seeds.sh
#
# The set must exist (bench/align.sh with MODE=paired PE_SEED=SEED, or
# bench/align-seeds.sh for a seed it keeps). Environment: GENOME (athal), SEED (mason's,
# 17), TIE_SEEDS (0 to 7), THREADS (2), SEQFARM (this checkout's release build unless
# given).
source "$(dirname "$0")/simulated-sets.sh"
genome=${GENOME:-athal}
seed=${SEED:-17}
base=$(set_base "$genome" "$seed")
[ -s "$base.2.fq" ] || { echo "no read set $base.{1,2}.fq: run MODE=paired PE_SEED=$seed PE_GENOMES=$genome bench/align.sh first" >&2; exit 1; }
echo "| $genome, mason seed $seed: tie-break seed | correct % | wrong at MAPQ >= 20 |"
echo "|---:|---:|---:|"
for tie in ${TIE_SEEDS:-$(seq 0 7)}; do
  "$SEQFARM" align -p "$threads" --seed "$tie" -x "$work/$genome" -1 "$base.1.fq" -2 "$base.2.fq" \
    -S "$tmp/seqfarm.sam" --force 2>/dev/null
  awk -f "$repo/bench/align_eval.awk" "$base.truth.sam" "$tmp/seqfarm.sam" |
    awk -F'\t' -v tie="$tie" '{ printf "| %s | %.3f | %d |\n", tie, $2, $8 }'
done | tee "$tmp/rows"
awk -F'|' '{ v = $3 + 0; n++; s += v; ss += v * v; if (n == 1 || v < lo) lo = v; if (n == 1 || v > hi) hi = v }
  END { mean = s / n; sd = n > 1 ? sqrt((ss - n * mean * mean) / (n - 1)) : 0
        printf "\nOver %d tie-break seeds: mean %.3f %%, standard deviation %.3f, range %.3f to %.3f.\n", n, mean, sd, lo, hi }' "$tmp/rows"
