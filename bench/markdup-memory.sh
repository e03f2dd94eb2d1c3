#!/usr/bin/env bash
# What `seqfarm markdup --memory` bounds: the same BAM marked with budgets from the
# default (768M, everything in memory for this file) down to 16M (read ends sorted into
# runs beside the output and merged back), next to Picard MarkDuplicates with its
# defaults (MAX_RECORDS_IN_RAM=500000, its own spilling). Prints per run the median wall
# seconds, the peak RSS (GNU time; it counts the pages of the memory-mapped input that
# seqfarm touched), the peak anonymous memory (RssAnon, sampled every 20 ms: the heap,
# what the budget bounds), and whether the BAM and metrics rows equal those of the
# first budget (the default, 768M, unless BUDGETS says otherwise). The sampler's own
# processes share the machine with what it measures.
#
# usage: bench/markdup-memory.sh [BAM] [THREADS]   (default: $SEQFARM_BENCH_DATA/markdup/normal.dup.bam, 2)
# env:   ROUNDS (default 2), BUDGETS (default "768M 256M 64M 16M"), SEQFARM_BIN,
#        SEQFARM_BENCH_DATA (default /tmp/seqfarm-bench), PICARD (0: leave Picard out)
# Needs: PicardCommandLine, samtools, GNU time, python3. Data: bench/make-markdup-data.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bench=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}
bam=$(realpath "${1:-$bench/markdup/normal.dup.bam}")
threads=${2:-2}
rounds=${ROUNDS:-2}
read -r -a budgets <<<"${BUDGETS:-768M 256M 64M 16M}"
[ -f "$bam" ] || { echo "missing $bam: run bench/make-markdup-data.sh first" >&2; exit 1; }
for tool in PicardCommandLine samtools python3 /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench/markdup-memory.sh needs $tool" >&2; exit 1; }
done
if [ -n "${SEQFARM_BIN:-}" ]; then
  sf=$(realpath "$SEQFARM_BIN")
else
  cargo build --release --quiet -p seqfarm-cli
  sf=$PWD/target/release/seqfarm
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# measure NAME CMD...: runs CMD in $tmp/NAME (emptied first), appending "wall maxrss_kb
# peak_anon_kb" to $tmp/NAME.runs.
measure() {
  local name=$1; shift
  rm -rf "$tmp/$name" && mkdir "$tmp/$name"
  (
    cd "$tmp/$name"
    /usr/bin/time -f '%e %M' -o time.txt "$@" >log.txt 2>&1 &
    local pid=$! peak=0 child v
    while kill -0 "$pid" 2>/dev/null; do
      # The command is GNU time's child (PicardCommandLine execs java).
      for child in $(pgrep -P "$pid"); do
        v=$(awk '/^RssAnon/ {print $2}' "/proc/$child/status" 2>/dev/null || true)
        [ -n "$v" ] && [ "$v" -gt "$peak" ] && peak=$v
      done
      sleep 0.02
    done
    wait "$pid" || { echo "$name failed:" >&2; cat log.txt >&2; exit 1; }
    echo "$(cat time.txt) $peak" >>"$tmp/$name.runs"
  )
}

. bench/machine.sh
echo "# $(date -u +%F) $(nproc) cores, $(machine); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $bam: $(samtools view -c "$bam") records, $(( $(stat -L -c %s "$bam") / 1000000 )) MB; $threads threads; median of $rounds rounds; $("$sf" --version)"
names=()
for ((r = 1; r <= rounds; r++)); do
  if [ "${PICARD:-1}" != 0 ]; then
    measure Picard PicardCommandLine MarkDuplicates I="$bam" O=out.bam M=metrics.txt TMP_DIR=. \
      VALIDATION_STRINGENCY=SILENT
  fi
  for m in "${budgets[@]}"; do
    measure "m$m" "$sf" markdup -t "$threads" -m "$m" "$bam" -o out.bam --metrics metrics.txt
  done
done
[ "${PICARD:-1}" != 0 ] && names+=(Picard)
for m in "${budgets[@]}"; do names+=("m$m"); done
first="m${budgets[0]}"
for n in "${names[@]}"; do
  same=-
  if [ "$n" != Picard ] && [ "$n" != "$first" ]; then
    same=no
    if cmp -s "$tmp/$first/out.bam" "$tmp/$n/out.bam" \
      && diff -q <(grep -v '^#' "$tmp/$first/metrics.txt") <(grep -v '^#' "$tmp/$n/metrics.txt") >/dev/null; then
      same=yes
    fi
  fi
  echo "$n $same" >>"$tmp/same"
done
python3 - "$tmp" "${names[@]}" <<'PY'
import statistics, sys
tmp, names = sys.argv[1], sys.argv[2:]
same = dict(l.split() for l in open(f"{tmp}/same"))
print(f"{'command':<28} {'wall_s':>7} {'peak_rss_MB':>11} {'peak_anon_MB':>12}  same_as_default")
rows = {}
for n in names:
    runs = [list(map(float, l.split())) for l in open(f"{tmp}/{n}.runs")]
    rows[n] = [statistics.median(r[i] for r in runs) for i in range(3)]
    label = "Picard MarkDuplicates" if n == "Picard" else f"seqfarm markdup -m {n[1:]}"
    w, rss, anon = rows[n]
    print(f"{label:<28} {w:7.2f} {rss / 1024:11.0f} {anon / 1024:12.0f}  {same[n]}")
if "Picard" in rows:
    p = rows["Picard"]
    for n in names[1:]:
        w, rss, anon = rows[n]
        print(f"# Picard / seqfarm -m {n[1:]}: wall {p[0] / w:.2f}x, peak RSS {p[1] / rss:.2f}x")
PY
