#!/usr/bin/env bash
# Makes the inputs of bench/markdup.sh from the chr20 benchmark BAM (normal.bam of
# ../shared/data/make-bench-bams.sh): the same alignments with about 15 % of the records
# simulated PCR duplicates (bench/markdup_data.py: copies of 14 % of the fragments, 1 to 3
# copies each, at the same positions with new names, some with a base or qualities
# changed; a quarter of the copies optical: Illumina names on the original's tile within
# 60 pixels), in two libraries (@RG LB), 0x400 flags cleared, coordinate sorted, indexed:
#
#   $OUT/normal.dup.bam        every fragment
#   $OUT/normal.dup.small.bam  every tenth fragment with its copies (quick runs)
#   $OUT/normal.dup.small.{1,2}.fq  its pairs as reads (collated, in no genome order), for
#                              `align --markdup` in bench/markdup.sh
#
# where OUT is ${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}/markdup. The same bytes on every
# run (fixed seed; samtools without @PG lines). Takes about 1.5 minutes on 2 cores (1 M pairs).
#
# usage: bench/make-markdup-data.sh [BAM]   (default: $SEQFARM_BENCH_DATA/normal.bam)
# env:   SEED (default 60), SHARE (fragments given copies, default 0.14), SEQFARM_BENCH_DATA
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bench=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}
in=${1:-$bench/normal.bam}
out=$bench/markdup
for tool in samtools python3; do
  command -v "$tool" >/dev/null || { echo "make-markdup-data.sh needs $tool" >&2; exit 1; }
done
if [ ! -f "$in" ]; then
  echo "missing $in: make the chr20 bench BAMs first with" >&2
  echo "  ../shared/data/make-bench-bams.sh $bench   (seqan-apps, minimap2, samtools; ~3 M pairs by default)" >&2
  exit 1
fi
[ -f "$in.bai" ] || samtools index "$in"
mkdir -p "$out"
tmp=$(mktemp -d "$out/tmp.XXXXXX"); trap 'rm -rf "$tmp"' EXIT
# Fragments in the input (sizes the grid of read names): records over 2, from the index.
pairs=$(samtools idxstats "$in" | awk '{n += $3 + $4} END {print int((n + 1) / 2)}')
start=$(date +%s)
mkfifo "$tmp/small.sam"
samtools sort -@1 -m 512M --no-PG -T "$tmp/small" -o "$tmp/normal.dup.small.bam" "$tmp/small.sam" &
small_job=$!
samtools view -h --no-PG "$in" \
  | python3 "$here/markdup_data.py" --pairs "$pairs" --seed "${SEED:-60}" --share "${SHARE:-0.14}" \
      --small "$tmp/small.sam" \
  | samtools sort -@2 -m 768M --no-PG -T "$tmp/full" -o "$tmp/normal.dup.bam" -
wait "$small_job"
for f in normal.dup.bam normal.dup.small.bam; do
  samtools index "$tmp/$f"
  mv "$tmp/$f" "$tmp/$f.bai" "$out/"
done
samtools collate -u -O --no-PG "$out/normal.dup.small.bam" "$tmp/collate" \
  | samtools fastq -n -1 "$tmp/small.1.fq" -2 "$tmp/small.2.fq" -0 /dev/null -s /dev/null - 2>/dev/null
mv "$tmp/small.1.fq" "$out/normal.dup.small.1.fq"; mv "$tmp/small.2.fq" "$out/normal.dup.small.2.fq"
echo "# made in $(( $(date +%s) - start )) s from $in ($pairs fragments):"
for f in normal.dup.bam normal.dup.small.bam; do
  total=$(samtools view -c "$out/$f")
  marked=$(samtools view -c -f 0x400 "$out/$f")
  printf '%-22s %10d records %8.1f MB, %d flagged 0x400\n' "$f" "$total" \
    "$(awk -v b="$(stat -c %s "$out/$f")" 'BEGIN {print b / 1e6}')" "$marked"
done
