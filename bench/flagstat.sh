#!/usr/bin/env bash
# Times `seqfarm flagstat` side by side with `samtools flagstat` (1 thread and -@ 2) and
# `sambamba flagstat -t 2` with hyperfine, in alternating rounds, and prints for each BAM
# the median wall time, the throughput in MB/s of compressed input, and the ratios.
# CPU time (user + system, median) is printed too: on a shared machine it is the steadier
# measure of the work each tool does. Then peak memory (max RSS, /usr/bin/time -v) of seqfarm at 1 and 2 threads per BAM.
#
# A CRAM given (known by its magic bytes) is timed the same way, with "htslib decode"
# (samtools view -@ 0 -u to /dev/null: every record decoded on one thread) in place of
# sambamba (which reads no CRAM), and seqfarm built with noodles-cram instead of htslib
# (bench/noodles-build.sh) beside the default build: the two CRAM decoders side by side.
#
# usage: bench/flagstat.sh [BAM|CRAM...] (default: the real BAMs in ../shared/data/alignments
#                                        and $SEQFARM_BENCH_DATA/normal.bam; FORMAT=cram:
#                                        $SEQFARM_BENCH_DATA/normal.cram)
# env:   ROUNDS (default 5), SEQFARM_SHARED_DATA, SEQFARM_BENCH_DATA (default /tmp/seqfarm-bench),
#        BUILD_FLAGS (extra cargo build flags, e.g. --no-default-features: libdeflate only)
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SEQFARM_SHARED_DATA:-../shared/data}
bench=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}
rounds=${ROUNDS:-5}
if [ $# -eq 0 ] && [ "${FORMAT:-bam}" = cram ]; then
  set -- "$bench/normal.cram"
elif [ $# -eq 0 ]; then
  for f in "$shared"/alignments/*/*.bam "$bench/normal.bam"; do
    [ -f "$f" ] && set -- "$@" "$f"
  done
fi
[ $# -gt 0 ] || { echo "no BAM given and none found" >&2; exit 1; }
for tool in hyperfine samtools python3 $([ "${FORMAT:-bam}" = cram ] || echo sambamba); do
  command -v "$tool" >/dev/null || { echo "bench/flagstat.sh needs $tool" >&2; exit 1; }
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for f in "$@"; do
  if [ "$(head -c 4 "$f")" = CRAM ]; then
    noodles=$(bench/noodles-build.sh "$tmp")
    break
  fi
done
# shellcheck disable=SC2086
cargo build --release --quiet ${BUILD_FLAGS:-}
sf=$PWD/target/release/seqfarm

echo "# $(date -u +%F) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-28s %-16s %9s %9s %12s %12s %9s %12s\n' BAM tool median_s MB/s vs_samtools vs_samtools@2 cpu_s cpu_vs_sam
for bam in "$@"; do
  name=$(basename "$bam")
  # The reports must agree before the times mean anything.
  cmp -s <("$sf" flagstat -t 2 "$bam") <(samtools flagstat "$bam") \
    || { echo "$name: seqfarm and samtools reports differ" >&2; exit 1; }
  names=("seqfarm -t 1" "seqfarm -t 2" "samtools" "samtools -@ 2" "sambamba -t 2")
  cmds=("$sf flagstat -t 1 $bam" "$sf flagstat -t 2 $bam" "samtools flagstat $bam"
        "samtools flagstat -@ 2 $bam" "sambamba flagstat -t 2 $bam")
  if [ "$(head -c 4 "$bam")" = CRAM ]; then
    names[4]="htslib decode"
    cmds[4]="samtools view -@ 0 -u -o /dev/null $bam"
    names+=("noodles -t 1" "noodles -t 2")
    cmds+=("$noodles flagstat -t 1 $bam" "$noodles flagstat -t 2 $bam")
  fi
  for r in $(seq "$rounds"); do
    args=()
    for i in "${!cmds[@]}"; do args+=(-n "${names[$i]}" "${cmds[$i]}"); done
    hyperfine --style none --runs 1 --export-json "$tmp/$name.$r.json" "${args[@]}" >/dev/null 2>&1
  done
  python3 - "$bam" "$tmp" "$name" "$rounds" <<'PY'
import json, os, statistics, sys
bam, tmp, name, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
times, cpu = {}, {}
for r in range(1, rounds + 1):
    for res in json.load(open(f"{tmp}/{name}.{r}.json"))["results"]:
        times.setdefault(res["command"], []).extend(res["times"])
        cpu.setdefault(res["command"], []).append(res["user"] + res["system"])
mb = os.path.getsize(bam) / 1e6
med = {k: statistics.median(v) for k, v in times.items()}
mcpu = {k: statistics.median(v) for k, v in cpu.items()}
for tool, t in med.items():
    c = mcpu[tool]
    print(f"{name[:28]:<28} {tool:<16} {t:9.3f} {mb / t:9.1f} {med['samtools'] / t:12.2f} "
          f"{med['samtools -@ 2'] / t:12.2f} {c:9.3f} {mcpu['samtools'] / c:12.2f}")
print(f"{name[:28]:<28} {'seqfarm 2t/1t':<16} {'':9} {'':9} {med['seqfarm -t 1'] / med['seqfarm -t 2']:12.2f}")
PY
done

echo
printf '%-28s %10s %14s %14s\n' BAM size_MB rss_t1_MB rss_t2_MB
for bam in "$@"; do
  rss=()
  for t in 1 2; do
    kb=$( { /usr/bin/time -v "$sf" flagstat -t "$t" "$bam" >/dev/null; } 2>&1 | awk -F': ' '/Maximum resident/ {print $2}')
    rss+=("$(awk -v k="$kb" 'BEGIN {printf "%.1f", k / 1024}')")
  done
  printf '%-28s %10.1f %14s %14s\n' "$(basename "$bam")" "$(awk -v b="$(stat -c %s "$bam")" 'BEGIN {print b / 1e6}')" "${rss[0]}" "${rss[1]}"
done
