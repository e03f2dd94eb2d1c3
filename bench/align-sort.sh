#!/usr/bin/env bash
# Wall time of a sorted, indexed BAM from `seqfarm align --sort` next to piping the
# unsorted output into `samtools sort` (seqfarm's and bowtie2's), with the unsorted
# `seqfarm align -o x.bam` as the baseline; 100,000 150 bp reads on chr20. Prints a
# markdown table (median of REPS runs, alternating).
#
#   bench/align-sort.sh
#
# Needs the chr20 data bench/align.sh leaves under $SEQFARM_BENCH_DATA/align (default
# /tmp/seqfarm-bench/align): chr20.sfi, chr20.bt2.*, chr20.150.100000.fq. Environment:
# THREADS (2), REPS (3), SORT_MEMORY (768M, seqfarm's default and samtools sort's -m),
# COMMANDS (the rows to time, default "unsorted sort pipe bowtie2"; unsorted is the base).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}/align
threads=${THREADS:-2}
reps=${REPS:-3}
memory=${SORT_MEMORY:-768M}
reads=$work/chr20.150.100000.fq
for f in "$work/chr20.sfi" "$work/chr20.bt2.1.bt2" "$reads"; do
  [ -e "$f" ] || { echo "missing $f: run bench/align.sh first" >&2; exit 1; }
done
cargo build --release --quiet -p seqfarm-cli
sf=$repo/target/release/seqfarm
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

declare -A cmd
cmd[unsorted]="$sf align -p $threads -x $work/chr20 -U $reads -o $out/u.bam"
cmd[sort]="$sf align -p $threads -x $work/chr20 -U $reads -o $out/s.bam --sort --sort-memory $memory"
cmd[pipe]="$sf align -p $threads -x $work/chr20 -U $reads -o - | samtools sort -@$threads -m $memory -o $out/p.bam - && samtools index $out/p.bam"
cmd[bowtie2]="bowtie2 -p $threads -x $work/chr20.bt2 -U $reads 2>/dev/null | samtools sort -@$threads -m $memory -o $out/b.bam - && samtools index $out/b.bam"
read -r -a names <<<"${COMMANDS:-unsorted sort pipe bowtie2}"
[ "${names[0]}" = unsorted ] || names=(unsorted "${names[@]}")
declare -A times
for ((r = 0; r < reps; r++)); do
  for n in "${names[@]}"; do
    rm -f "$out"/*
    s=$(date +%s.%N)
    bash -c "${cmd[$n]}" 2>/dev/null
    e=$(date +%s.%N)
    times[$n]+="$(echo "$e - $s" | bc) "
  done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
base=$(echo "${times[unsorted]}" | median)
label() {
  case $1 in
    unsorted) echo "seqfarm align -o x.bam (unsorted, no index)" ;;
    sort) echo "seqfarm align -o x.bam --sort (sorted + .bai)" ;;
    pipe) echo "seqfarm align -o - \| samtools sort -@$threads; samtools index" ;;
    bowtie2) echo "bowtie2 \| samtools sort -@$threads; samtools index" ;;
  esac
}
echo "| command ($threads threads, 100,000 x 150 bp, chr20) | wall s (median of $reps) | vs unsorted |"
echo "|---|---:|---:|"
for n in "${names[@]}"; do
  m=$(echo "${times[$n]}" | median)
  printf '| %s | %.2f | %.2fx |\n' "$(label "$n")" "$m" "$(echo "$m / $base" | bc -l)"
done
