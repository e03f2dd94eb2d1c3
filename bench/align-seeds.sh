#!/usr/bin/env bash
# seqfarm and bwa mem on many read sets drawn from one genome as bench/align.sh draws its
# simulated pairs (100,000 pairs of 2x150 bp, fragments 400 +- 60; one mason seed a set),
# to tell a difference in % correct from the chance of which reads were drawn. Per set:
# each tool's % correct, its share of mates at MAPQ >= 20 and the wrong ones among them
# (bench/align_eval.awk), the mates only one of the two places right
# (bench/align_ties.py), and why seqfarm misplaced what it misplaced
# (bench/align_misses.py: a tie at the true place, a true place that scores lower, or a
# better pair its search missed); then the totals over all the sets.
#
#   GENOME=athal SEEDS="$(seq 17 31)" bench/align-seeds.sh
#
# Needs the genome's FASTA, variants and indexes as bench/align.sh leaves them (run
# `MODE=paired PE_GENOMES=GENOME bench/align.sh` first). A set missing from its folder
# is drawn here, and removed after use unless it is one of bench/align.sh's seeds (17,
# 18, 19). Environment: GENOME (athal), SEEDS (17 to 31), THREADS (2), SEQFARM (this
# checkout's release build unless given).
source "$(dirname "$0")/simulated-sets.sh"
source "$repo/bench/simulated-pairs.sh"
genome=${GENOME:-athal}
seeds=${SEEDS:-$(seq 17 31)}
fa=$work/$genome.fa
[ -s "$fa" ] && [ -s "$work/$genome.var.vcf" ] && [ -s "$work/$genome.bwa.bwt" ] || {
  echo "no $fa with its variants and indexes: run MODE=paired PE_GENOMES=$genome bench/align.sh first" >&2
  exit 1
}
echo "$(date -u +%Y-%m-%d), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $threads threads; $("$SEQFARM" --version), bwa $(bwa 2>&1 | awk '/Version/ {print $2}')"
echo
echo "| $genome, mason seed | seqfarm correct % | bwa mem correct % | mates right only in seqfarm / only in bwa mem | MAPQ >= 20 %, seqfarm / bwa mem | wrong at MAPQ >= 20, seqfarm / bwa mem | seqfarm's misplaced mates: tie / scored lower / missed / missed, gap near an end / unaligned |"
echo "|---|---:|---:|---|---|---|---|"
totals=$tmp/totals
: > "$totals"
for seed in $seeds; do
  base=$(set_base "$genome" "$seed")
  drawn=false
  if [ ! -s "$base.2.fq" ]; then
    draw_pairs "$fa" "$work/$genome.var.vcf" 100000 "$seed" "$base"
    case $seed in 17 | 18 | 19) ;; *) drawn=true ;; esac
  fi
  "$SEQFARM" align -p "$threads" -x "$work/$genome" -1 "$base.1.fq" -2 "$base.2.fq" -S "$tmp/seqfarm.sam" --force 2>/dev/null
  bwa mem -t "$threads" "$work/$genome.bwa" "$base.1.fq" "$base.2.fq" -o "$tmp/bwa.sam" 2>/dev/null
  read -r mates sf_correct sf_q20 sf_wrong20 < <(awk -f "$repo/bench/align_eval.awk" "$base.truth.sam" "$tmp/seqfarm.sam" | cut -f1,2,7,8)
  read -r _ bwa_correct bwa_q20 bwa_wrong20 < <(awk -f "$repo/bench/align_eval.awk" "$base.truth.sam" "$tmp/bwa.sam" | cut -f1,2,7,8)
  read -r only_sf only_bwa < <(python3 "$repo/bench/align_ties.py" "$base.truth.sam" "$tmp/seqfarm.sam" "$tmp/bwa.sam" seqfarm bwa |
    awk '/^only seqfarm/ {a = $4} /^only bwa/ {b = $4} END {print a, b}')
  read -r tie lower missed near_end unaligned < <(python3 "$repo/bench/align_misses.py" "$fa" "$base.truth.sam" "$tmp/seqfarm.sam" seqfarm |
    sed -n 's/.*: tie \([0-9]*\), scored lower \([0-9]*\), missed \([0-9]*\), missed, gap near an end \([0-9]*\), unaligned \([0-9]*\)$/\1 \2 \3 \4 \5/p')
  echo "| $seed | $sf_correct | $bwa_correct | $only_sf / $only_bwa | $sf_q20 / $bwa_q20 | $sf_wrong20 / $bwa_wrong20 | $tie / $lower / $missed / $near_end / $unaligned |"
  echo "$mates $sf_correct $bwa_correct $only_sf $only_bwa $sf_wrong20 $bwa_wrong20 $sf_q20 $bwa_q20" >> "$totals"
  if $drawn; then rm -f "$base.1.fq" "$base.2.fq" "$base.truth.sam"; fi
done
awk '{ n += $1; a += $1 * $2 / 100; b += $1 * $3 / 100; oa += $4; ob += $5; wa += $6; wb += $7; sets++
       qa += $1 * $8 / 100; qb += $1 * $9 / 100
       d = $4 - $5; diffs[sets] = d; sum += d }
  END {
    mean = sum / sets; for (i = 1; i <= sets; i++) ss += (diffs[i] - mean) ^ 2
    sd = sets > 1 ? sqrt(ss / (sets - 1)) : 0
    printf "| all %d sets | %.3f | %.3f | %d / %d | %.2f / %.2f | %d / %d | |\n", sets, 100 * a / n, 100 * b / n, oa, ob, 100 * qa / n, 100 * qb / n, wa, wb
    printf "\nPer set, mates right only in seqfarm minus only in bwa mem: mean %.1f, standard deviation %.1f, standard error of the mean %.1f.\n", mean, sd, sd / sqrt(sets)
  }' "$totals"
