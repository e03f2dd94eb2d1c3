#!/usr/bin/env bash
# `seqfarm align` at an earlier revision against the working tree, on the same reads and
# indexes: whether the SAM is the same (the @PG line aside) and the wall and CPU time of
# each, timed with hyperfine (one warm-up run each). For changes meant to make
# alignment faster without changing its output.
#
#   bench/align-revisions.sh BASE_REV [INDEX_PREFIX ...]
#
# INDEX_PREFIX defaults to the indexes bench/index-large.sh leaves under
# $SEQFARM_BENCH_DATA/large: the contig synth_7 and, when built, large-3.1g.
# Environment:
#   THREADS  -p for align (default 2)
#   RUNS     hyperfine runs per command (default 5, after one warm-up)
#   STAT     the statistic of the runs in the table: mean (default) or median; the
#            median also gives the range of the runs (min-max), for timings where a
#            few runs stall (the kernel compacting memory for huge pages)
#   READS    single-end FASTQ (default the 100,000 mason reads of synth_7 that
#            bench/index-large.sh simulates)
#   PAIRS    "R1.fq R2.fq" (default 50,000 mason pairs of 2x150 bp from synth_7,
#            fragments 400 +- 60, simulated here with --seed 5 when missing)
#   COLD=1   drop the page cache (needs root) before every timed run, so each starts
#            with the index on disk (no warm-up run then)
#   ALTERNATE=1  run the two builds in alternation (bench/alternating_times.py) instead
#            of hyperfine's block of runs per build: the median of each with the range
#            of its runs, and the speed-up as the median of the per-round ratios. For
#            small changes, where a shared machine drifts between two blocks of runs
#            as much as the change (not with COLD)
#   INSTRUCTIONS=N  also count the instructions of each build aligning the first N reads
#            of READS and the first N pairs of PAIRS at 1 thread (valgrind's callgrind):
#            repeatable where wall times are noisy
#   NEW_ARGS  options given to the working tree's runs only (e.g. `--mapq calibrated`,
#            to compare with a revision whose default that was)
#   QUERIES=1  also time the index queries of the query_speed example (counts, locate,
#            SMEMs of READS) at both revisions on each index, QUERY_RUNS times each
#            (default 3, alternating): median seconds, new over old, per-run range
# BASE_REV is extracted (git archive) and built under $SEQFARM_BENCH_DATA/revisions.
# Needs: git, cargo, hyperfine, python3, seqan-apps (mason) for the default pairs, valgrind
# for INSTRUCTIONS.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
base=${1:?usage: bench/align-revisions.sh BASE_REV [INDEX_PREFIX ...]}
shift
threads=${THREADS:-2}
runs=${RUNS:-5}
bench_root=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}
large=$bench_root/large
if [ $# -eq 0 ]; then
  set -- "$large/synth_7"
  [ -s "$large/large-3.1g.sfi" ] && set -- "$@" "$large/large-3.1g"
fi
reads=${READS:-$large/synth_7.150.100000.fq}
[ -s "$reads" ] || { echo "no reads $reads (run bench/index-large.sh first, or set READS)" >&2; exit 1; }
if [ -n "${PAIRS:-}" ]; then
  read -r r1 r2 <<<"$PAIRS"
else
  r1=$large/synth_7.pairs.1.fq
  r2=$large/synth_7.pairs.2.fq
  [ -s "$r1" ] ||
    /usr/lib/seqan/bin/mason_simulator -ir "$large/synth_7.fa" -n 50000 --illumina-read-length 150 \
      --fragment-mean-size 400 --fragment-size-std-dev 60 --seed 5 -o "$r1" -or "$r2" -q >/dev/null 2>&1
fi

examples=()
[ "${QUERIES:-0}" = 1 ] && examples=(-p seqfarm-fmindex --example query_speed)
. bench/revision-build.sh
build_revisions "$base" "${examples[@]}"
if [ "${COLD:-0}" = 1 ]; then
  cache_opts=(--prepare "sh -c 'sync; echo 3 >/proc/sys/vm/drop_caches'")
  cache="page cache dropped before each run"
else
  cache_opts=(-w 1)
  cache="page cache warm (one warm-up run)"
fi
read -r -a new_args <<<"${NEW_ARGS:-}"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

if [ "${ALTERNATE:-0}" = 1 ]; then
  [ "${COLD:-0}" != 1 ] || { echo "ALTERNATE and COLD do not combine" >&2; exit 1; }
  timing="$runs alternating rounds (median wall s, range; speed-up the median of the rounds' ratios), page cache warm (one warm-up run each)"
else
  timing="$runs runs each (${STAT:-mean} wall s), $cache"
fi
. bench/machine.sh
echo "# $(date +%F) $(nproc) cores ($(machine)); $rev against $now${NEW_ARGS:+ with $NEW_ARGS}, align -p $threads, $timing"
echo
echo "| reads | index | same SAM | $rev s | $now s | speed-up | $rev CPU s (user + sys) | $now CPU s |"
echo "|---|---|---|---:|---:|---:|---:|---:|"
for index in "$@"; do
  for kind in single paired; do
    if [ "$kind" = single ]; then input=(-U "$reads"); else input=(-1 "$r1" -2 "$r2"); fi
    args=(align -p "$threads" -x "$index" "${input[@]}" --force)
    "$old" "${args[@]}" -S "$scratch/old.sam" 2>/dev/null
    "$new" "${args[@]}" "${new_args[@]}" -S "$scratch/new.sam" 2>/dev/null
    if cmp -s <(grep -v '^@PG' "$scratch/old.sam") <(grep -v '^@PG' "$scratch/new.sam"); then same=yes; else same=NO; fi
    if [ "${ALTERNATE:-0}" = 1 ]; then
      python3 bench/alternating_times.py "$runs" "$kind" "$(basename "$index")" "$same" \
        "$old" "${args[@]}" -S "$scratch/old.sam" --vs "$new" "${args[@]}" "${new_args[@]}" -S "$scratch/new.sam"
      continue
    fi
    hyperfine -N "${cache_opts[@]}" -r "$runs" --export-json "$scratch/times.json" \
      "$old ${args[*]} -S $scratch/old.sam" "$new ${args[*]} ${new_args[*]} -S $scratch/new.sam" >/dev/null
    python3 - "$scratch/times.json" "$kind" "$(basename "$index")" "$same" "${STAT:-mean}" <<'EOF'
import json, sys
old, new = json.load(open(sys.argv[1]))["results"]
stat = sys.argv[5]
cpu = lambda r: f"{r['user']:.2f} + {r['system']:.2f}"
def wall(r):
    if stat == "median":
        return f"{r['median']:.3f} ({r['min']:.3f}-{r['max']:.3f})"
    return f"{r[stat]:.3f}"
print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {wall(old)} | {wall(new)} | "
      f"{old[stat] / new[stat]:.2f}x | {cpu(old)} | {cpu(new)} |")
EOF
  done
done

if [ -n "${INSTRUCTIONS:-}" ]; then
  head -n $((4 * INSTRUCTIONS)) "$reads" >"$scratch/first.fq"
  head -n $((4 * INSTRUCTIONS)) "$r1" >"$scratch/first.1.fq"
  head -n $((4 * INSTRUCTIONS)) "$r2" >"$scratch/first.2.fq"
  echo
  echo "Instructions aligning the first $INSTRUCTIONS reads or pairs at 1 thread (callgrind):"
  echo
  echo "| reads | index | $rev | $now | $now / $rev |"
  echo "|---|---|---:|---:|---:|"
  for index in "$@"; do
    for kind in single paired; do
      if [ "$kind" = single ]; then input=(-U "$scratch/first.fq"); else input=(-1 "$scratch/first.1.fq" -2 "$scratch/first.2.fq"); fi
      counts=()
      for bin in "$old" "$new"; do
        extra=()
        [ "$bin" = "$new" ] && extra=("${new_args[@]}")
        counts+=("$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" align -p 1 \
          -x "$index" "${input[@]}" "${extra[@]}" -S "$scratch/first.sam" --force 2>&1 |
          awk '/Collected/ {print $NF}')")
      done
      awk -v k="$kind" -v i="$(basename "$index")" -v a="${counts[0]}" -v b="${counts[1]}" \
        'BEGIN { printf "| %s | %s | %.3f G | %.3f G | %.4f |\n", k, i, a / 1e9, b / 1e9, b / a }'
    done
  done
fi

[ "${QUERIES:-0}" = 1 ] || exit 0
query_runs=${QUERY_RUNS:-3}
for index in "$@"; do
  echo
  echo "Queries on $(basename "$index") (one thread, median of $query_runs runs each):"
  echo
  echo "| query | $rev s | $now s | $now / $rev | per-run ratios |"
  echo "|---|---:|---:|---:|---|"
  for run in $(seq "$query_runs"); do
    for side in old new; do
      if [ "$side" = old ]; then bin=$tree/target; else bin=$repo/target; fi
      "$bin/release/examples/query_speed" "$index.sfi" 1000000 20 mmap "$reads" >"$scratch/q.$side.$run.tsv"
    done
  done
  python3 "$repo/bench/query_ratio.py" "$scratch/q.old" "$scratch/q.new" "$query_runs"
done
