#!/usr/bin/env bash
# Mean MAPQ per window over a BAM, from Python: seqfarm.BamFile.map_regions at 1 and 2
# threads next to a pysam fetch loop (one fetch per window), and the Rust window_mapq
# example for reference; checks that every result agrees and prints a markdown table.
#
#   bench/map-regions.sh [BAM]          (default /tmp/seqfarm-bench/normal.bam, indexed)
#
# Environment: WINDOW (10000), REPS (3 timed runs each, the median reported). seqfarm is
# taken from target/py-venv (built as test.sh builds it); pysam is installed from PyPI into
# a venv of its own under $SEQFARM_BENCH_DATA (default /tmp/seqfarm-bench)/pysam-venv.
# Times are those of the computation inside the interpreter, imports excluded (CPU: all
# threads, user + system); the Rust example's are the whole process's. On a shared machine
# compare CPU seconds too: wall times there depend on what else runs.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
bam=${1:-/tmp/seqfarm-bench/normal.bam}
window=${WINDOW:-10000}
reps=${REPS:-3}
bench_root=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}
pysam_venv=$bench_root/pysam-venv
[ -f "$bam" ] || { echo "no BAM $bam" >&2; exit 1; }
[ -x target/py-venv/bin/python ] || { echo "build the package first (see test.sh)" >&2; exit 1; }
if [ ! -x "$pysam_venv/bin/python" ] || ! "$pysam_venv/bin/python" -c "import pysam" 2>/dev/null; then
  python3 -m venv "$pysam_venv"
  "$pysam_venv/bin/pip" install -q pysam==0.24.1 numpy==2.4.6
fi
cargo build --release --quiet -p seqfarm-io --example window_mapq
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
script=$repo/bench/map_regions.py

# The run of median wall time among "wall cpu" lines.
median() { sort -g | awk '{ v[NR] = $0 } END { print v[int((NR + 1) / 2)] }'; }

# name, then the command printing seconds (output array as the last argument)
declare -A seconds cpu_seconds
run() {
  local name=$1
  shift
  for _ in $(seq "$reps"); do "$@" "$work/$name.npy"; done | median > "$work/$name.time"
  read -r wall cpu < "$work/$name.time"
  seconds[$name]=$wall
  cpu_seconds[$name]=$cpu
}
run seqfarm-1 target/py-venv/bin/python "$script" seqfarm "$bam" "$window" 1
run seqfarm-2 target/py-venv/bin/python "$script" seqfarm "$bam" "$window" 2
run seqfarm-2w target/py-venv/bin/python "$script" seqfarm-in-workers "$bam" "$window" 2
run pysam "$pysam_venv/bin/python" "$script" pysam "$bam" "$window"
for _ in $(seq "$reps"); do
  /usr/bin/time -f "%e %U %S" -o "$work/rust.one" \
    target/release/examples/window_mapq -w "$window" -t 2 "$bam" > "$work/rust.tsv"
  awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$work/rust.one"
done | median > "$work/rust.time"
read -r wall cpu < "$work/rust.time"
seconds[rust]=$wall
cpu_seconds[rust]=$cpu
target/py-venv/bin/python "$script" rust "$work/rust.tsv" "$work/rust.npy"

status=0
for other in seqfarm-1 seqfarm-2 seqfarm-2w rust; do
  (cd "$work" && "$repo/target/py-venv/bin/python" "$script" same pysam.npy "$other.npy") || status=1
done
windows=$(wc -l < "$work/rust.tsv")
echo
echo "Mean MAPQ per ${window}-base window, $(basename "$bam") ($windows windows), median of $reps:"
echo
echo "| implementation | threads | wall s | CPU s | wall vs pysam |"
echo "|---|---|---|---|---|"
row() {
  printf '| %s | %s | %.2f | %.2f | %.1fx |\n' "$1" "$2" "${seconds[$3]}" "${cpu_seconds[$3]}" \
    "$(echo "${seconds[pysam]} / ${seconds[$3]}" | bc -l)"
}
row "pysam fetch loop" 1 pysam
row "seqfarm.BamFile.map_regions" 1 seqfarm-1
row "seqfarm.BamFile.map_regions" 2 seqfarm-2
row "seqfarm.BamFile.map_regions(in_workers=True)" 2 seqfarm-2w
row "Rust window_mapq example (whole process)" 2 rust
exit $status
