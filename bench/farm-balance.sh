#!/usr/bin/env bash
# The farm's load balance when a core is shared: `seqfarm align` at an earlier revision
# against the working tree, one worker per core, quiet and beside a busy loop on core 0,
# with the workers left to the scheduler and pinned to cores (`--pin`, as `--numa`
# pins them). Pinned beside the busy loop, worker 0 runs at about half speed: an
# ordered farm whose workers take turns runs at that speed too. In alternating rounds
# (one run of each variant per round); prints the median wall seconds of each
# revision, the working tree's speed-up, and from one `--stats` run of each how many
# tasks each worker took and how long the faster one sat idle.
#
#   bench/farm-balance.sh BASE_REV
#
# Environment:
#   INDEX    seqfarm index prefix (default $SEQFARM_BENCH_DATA/align/chr20, which
#            bench/align.sh builds)
#   PAIRS    "R1.fq R2.fq" (default the 100,000 pairs of chr20 that
#            `MODE=paired bench/align.sh` simulates)
#   ROUNDS   rounds (default 5)
# BASE_REV is extracted (git archive) and built under $SEQFARM_BENCH_DATA/revisions.
# Needs: git, cargo, hyperfine, python3, taskset.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: bench/farm-balance.sh BASE_REV}
bench_root=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}
index=${INDEX:-$bench_root/align/chr20}
rounds=${ROUNDS:-5}
if [ -n "${PAIRS:-}" ]; then
  read -r r1 r2 <<<"$PAIRS"
else
  r1=$bench_root/align/chr20.pe150.100000.1.fq
  r2=$bench_root/align/chr20.pe150.100000.2.fq
fi
[ -s "$index.sfi" ] || { echo "no index $index.sfi (run bench/align.sh first, or set INDEX)" >&2; exit 1; }
[ -s "$r1" ] && [ -s "$r2" ] || { echo "no pairs $r1 $r2 (run MODE=paired bench/align.sh first, or set PAIRS)" >&2; exit 1; }
source bench/rounds.sh
. bench/revision-build.sh
build_revisions "$base"
cores=$(nproc)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# A busy loop on core 0 for as long as COMMAND runs.
busy=$(beside_a_busy_core "$scratch")

align() { echo "$1 align -p $cores -x $index -1 $r1 -2 $r2 -S $scratch/out.sam --force $2"; }
args=()
for which in old new; do
  for pin in "" "--pin"; do
    name="$which${pin:+ pinned}"
    args+=("$name quiet" "$(align "${!which}" "$pin")"
           "$name busy" "$busy $(align "${!which}" "$pin")")
  done
done
echo "# $(date -u +%F) $cores cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $rev against $now; $rounds rounds; align -p $cores -x $index -1 $r1 -2 $r2"
alternate_rounds "$rounds" "$scratch/balance" -- "${args[@]}"
for which in old new; do
  for pin in "" "--pin"; do
    $busy $(align "${!which}" "$pin") --stats "$scratch/$which$pin.json" 2>/dev/null
  done
done

python3 - "$(round_medians "$rounds" "$scratch/balance")" "$scratch" "$rev" "$now" <<'PY'
import json, sys
med, scratch, rev, now = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]

def split(which, pin):
    stats = json.load(open(f"{scratch}/{which}{pin}.json"))
    tasks = "/".join(str(w["tasks"]) for w in stats["workers"])
    idle = max(w["idle_s"] for w in stats["workers"]) / stats["wall_s"]
    return f"{tasks} ({100 * idle:.0f} %)"

print()
print(f"| workers | load | {rev} s | {now} s | speed-up | tasks per worker, busy, {rev} (most idle) | {now} |")
print("|---|---|---:|---:|---:|---|---|")
for pin, label in (("", "scheduler"), ("--pin", "pinned")):
    suffix = " pinned" if pin else ""
    for load in ("quiet", "busy"):
        old, new = med[f"old{suffix} {load}"], med[f"new{suffix} {load}"]
        tasks = (split("old", pin), split("new", pin)) if load == "busy" else ("", "")
        where = "busy loop on core 0" if load == "busy" else "quiet"
        print(f"| {label} | {where} | {old:.2f} | {new:.2f} | {new and old / new:.2f}x | {tasks[0]} | {tasks[1]} |")
PY
