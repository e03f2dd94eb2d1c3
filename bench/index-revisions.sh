#!/usr/bin/env bash
# `seqfarm index` at an earlier revision against the working tree, on the same genomes,
# memory budgets and thread counts: whether the index files are byte-identical, the
# number of sort buckets, and the wall and CPU time of each build, timed with hyperfine
# (one warm-up run each). For changes meant to make the build faster without changing
# the index.
#
#   bench/index-revisions.sh BASE_REV [GENOME.fa[.gz] ...]
#
# GENOME defaults to human GRCh37 chr20 and A. thaliana chr1 from ../shared/data/genomes.
# Environment:
#   MEMORY   --memory budgets, space-separated; "default" leaves the option out
#            (default: "default 250M 150M": seqfarm's own budget, then two that split
#            the suffix sort into more buckets)
#   THREADS  -t values, space-separated (default "1 2")
#   RUNS     hyperfine runs per command (default 3, after one warm-up)
# BASE_REV is extracted (git archive) and built under $SEQFARM_BENCH_DATA/revisions.
# Needs: git, cargo, hyperfine, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: bench/index-revisions.sh BASE_REV [GENOME.fa[.gz] ...]}
shift
shared=${SEQFARM_SHARED_DATA:-../shared/data}/genomes
if [ $# -eq 0 ]; then
  set -- "$shared/human_GRCh37_chr20.fa.gz" "$shared/Athaliana_TAIR10_chr1.fna.gz"
fi
for genome in "$@"; do
  [ -r "$genome" ] || { echo "bench/index-revisions.sh: cannot read $genome (pass genome paths as arguments)" >&2; exit 1; }
done
read -r -a budgets <<<"${MEMORY:-default 250M 150M}"
read -r -a thread_counts <<<"${THREADS:-1 2}"
runs=${RUNS:-3}
. bench/revision-build.sh
build_revisions "$base"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

echo "# $(date +%F) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $rev against $now, $runs runs each after a warm-up"
echo
echo "| genome | --memory | -t | buckets | same index | $rev s | $now s | speed-up | $rev CPU s (user + sys) | $now CPU s | peak MB, $rev / $now |"
echo "|---|---|---:|---:|---|---:|---:|---:|---:|---:|---|"
for genome in "$@"; do
  for budget in "${budgets[@]}"; do
    memory=()
    [ "$budget" = default ] || memory=(--memory "$budget")
    for t in "${thread_counts[@]}"; do
      args=(index --force -t "$t" "${memory[@]}")
      for side in old new; do
        /usr/bin/time -f %M -o "$scratch/$side.kb" "${!side}" "${args[@]}" -o "$scratch/$side" "$genome" 2>"$scratch/$side.log" ||
          { cat "$scratch/$side.log" >&2; exit 1; }
      done
      if cmp -s "$scratch/old.sfi" "$scratch/new.sfi"; then same=yes; else same=NO; fi
      buckets=$(grep -o '[0-9]* sort bucket' "$scratch/new.log" | cut -d' ' -f1)
      hyperfine -N -w 1 -r "$runs" --export-json "$scratch/times.json" \
        "$old ${args[*]} -o $scratch/old $genome" "$new ${args[*]} -o $scratch/new $genome" >/dev/null
      python3 - "$scratch/times.json" "$(basename "$genome")" "$budget" "$t" "$buckets" "$same" \
        "$(cat "$scratch/old.kb")" "$(cat "$scratch/new.kb")" <<'PY'
import json, sys
old, new = json.load(open(sys.argv[1]))["results"]
genome, budget, threads, buckets, same, old_kb, new_kb = sys.argv[2:]
cpu = lambda r: f"{r['user']:.2f} + {r['system']:.2f}"
print(f"| {genome} | {budget} | {threads} | {buckets} | {same} | {old['mean']:.2f} | {new['mean']:.2f} | "
      f"{old['mean'] / new['mean']:.2f}x | {cpu(old)} | {cpu(new)} | {int(old_kb) // 1024} / {int(new_kb) // 1024} |")
PY
    done
  done
done
