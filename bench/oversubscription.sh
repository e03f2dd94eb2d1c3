#!/usr/bin/env bash
# The farm on a busy machine: more threads than cores, and a core taken by another
# process. For `flagstat` and `align` (and their peers, samtools flagstat and bowtie2,
# for comparison), in alternating hyperfine rounds:
#   * oversubscribed: the speed at 4x the cores in threads (8 on a 2-core machine) over
#     the speed at one thread per core (goal: >= 0.9);
#   * shared core: the speed at one thread per core with a busy loop running beside it
#     (on core 0) over its quiet speed (goal: >= 0.45 on 2 cores, i.e. no worse than
#     losing the core outright).
# Prints one table: median wall seconds per variant and the two ratios per tool.
#
# usage: bench/oversubscription.sh
# env:   ROUNDS (default 5), SEQFARM_SHARED_DATA (default ../shared/data),
#        SEQFARM_BENCH_DATA (default /tmp/seqfarm-bench), BUILD_FLAGS (extra cargo build
#        flags), and the inputs:
#        BAM (flagstat; default $SEQFARM_BENCH_DATA/normal.bam, else the largest BAM in
#        $SEQFARM_SHARED_DATA/alignments),
#        INDEX (align: a seqfarm index prefix; default $SEQFARM_BENCH_DATA/align/chr20,
#        else built here from REFERENCE), BT2_INDEX (bowtie2's index of the same genome;
#        default $SEQFARM_BENCH_DATA/align/chr20.bt2 beside that INDEX, else built here
#        from REFERENCE), REFERENCE (default the CHM1 mini reference),
#        READS (default 50,000 reads of $SEQFARM_BENCH_DATA/align/chr20.150.100000.fq,
#        else the CHM1 reads).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
source bench/rounds.sh
shared=${SEQFARM_SHARED_DATA:-../shared/data}
bench=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}
rounds=${ROUNDS:-5}
for tool in hyperfine samtools bowtie2 bowtie2-build python3 taskset; do
  command -v "$tool" >/dev/null || { echo "bench/oversubscription.sh needs $tool" >&2; exit 1; }
done
cores=$(nproc)
over=$((cores * 4))

# shellcheck disable=SC2086
cargo build --release --quiet ${BUILD_FLAGS:-}
sf=$repo/target/release/seqfarm
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

if [ -z "${BAM:-}" ]; then
  if [ -f "$bench/normal.bam" ]; then
    BAM=$bench/normal.bam
  else
    BAM=$(ls -S "$shared"/alignments/*/*.bam | head -1)
  fi
fi
if [ -z "${INDEX:-}" ] && [ -f "$bench/align/chr20.sfi" ]; then
  INDEX=$bench/align/chr20
  BT2_INDEX=${BT2_INDEX:-$bench/align/chr20.bt2}
  READS=${READS:-$tmp/reads.fq}
  [ "$READS" != "$tmp/reads.fq" ] || head -n 200000 "$bench/align/chr20.150.100000.fq" > "$READS"
fi
reference=${REFERENCE:-$shared/reads/human_CHM1_chr1_100kb/GRCh37_miniReference_chr1_chr2_100kb.fa.gz}
if [ -z "${INDEX:-}" ]; then
  INDEX=$tmp/ref
  "$sf" index -o "$INDEX" "$reference" 2>/dev/null
  READS=${READS:-$shared/reads/human_CHM1_chr1_100kb/CHM1_R1.fq.gz}
fi
if [ -z "${BT2_INDEX:-}" ] || [ ! -f "$BT2_INDEX.1.bt2" ]; then
  BT2_INDEX=$tmp/ref.bt2
  zcat -f "$reference" > "$tmp/ref.fa"
  bowtie2-build --threads "$cores" "$tmp/ref.fa" "$BT2_INDEX" >/dev/null
fi

# A busy loop on core 0 for as long as COMMAND runs.
busy=$(beside_a_busy_core "$tmp")

flagstat_at() { echo "$sf flagstat -t $1 -o $tmp/flagstat.txt --force $BAM"; }
samtools_at() { echo "samtools flagstat -@ $1 $BAM"; }
align_at() { echo "$sf align -p $1 -x $INDEX -U $READS -S $tmp/align.sam --force"; }
bowtie2_at() { echo "bowtie2 -p $1 -x $BT2_INDEX -U $READS -S $tmp/bt2.sam"; }

echo "# $(date -u +%F) $cores cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# rounds: $rounds; BAM=$BAM INDEX=$INDEX BT2_INDEX=$BT2_INDEX READS=$READS"
args=()
for tool in flagstat samtools align bowtie2; do
  args+=("$tool@$cores" "$(${tool}_at "$cores")"
         "$tool@$over" "$(${tool}_at "$over")"
         "$tool@$cores+busy" "$busy $(${tool}_at "$cores")")
done
alternate_rounds "$rounds" "$tmp/over" -- "${args[@]}"

python3 - "$(round_medians "$rounds" "$tmp/over")" "$cores" "$over" <<'PY'
import json, sys
med, cores, over = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
print(f"{'tool':<18} {'-t ' + cores + ' s':>9} {'-t ' + over + ' s':>9} {'busy s':>9} "
      f"{over + '/' + cores + ' speed':>12} {'busy/quiet':>11}")
for tool in ["flagstat", "samtools", "align", "bowtie2"]:
    quiet, many, busy = (med[f"{tool}@{cores}"], med[f"{tool}@{over}"], med[f"{tool}@{cores}+busy"])
    name = tool if tool in ("samtools", "bowtie2") else "seqfarm " + tool
    print(f"{name:<18} {quiet:>9.3f} {many:>9.3f} {busy:>9.3f} {quiet / many:>12.2f} {quiet / busy:>11.2f}")
PY
