#!/usr/bin/env bash
# `seqfarm index` at human scale: build time and peak memory side by side with
# `bwa index` on a human-sized stand-in genome, then queries and alignment on the big
# index against one of its contigs indexed alone.
#
#   bench/index-large.sh [GENOME.fa]
#
# GENOME.fa defaults to $SEQFARM_BENCH_DATA/large/large-$GBP.fa, written by
# ../shared/data/make-large-genome.py --gbp $GBP when missing (GBP default 1.2: past
# 2^31 text characters with both strands; 3.1 for the human-sized row).
# Environment:
#   THREADS  threads for seqfarm (default 2; bwa index runs on one, it has no option)
#   MEMORY   seqfarm index --memory (default 1.33 bytes per base of GENOME.fa; the word
#            "default" leaves the option out: seqfarm's own default budget). Several
#            budgets, space-separated ("default 4600M"), build one index each, a row
#            each, and a check that every file is byte-identical to the first budget's
#            (the one queried below)
#   PEERS=0  skip bwa index (it takes about 40 minutes at 1.2 Gbp)
#   BUILD=0  reuse the seqfarm indexes and GNU time records of an earlier run where
#            there are some (and, with PEERS=0, bwa's record when there is one) instead
#            of building again
#   CONTIG   contig to align to and index alone (default synth_7: human chr20
#            diverged by 12 %, so no other contig is a near copy of it)
#   READS    reads of 150 bp simulated from CONTIG (default 100000)
#   QUERY_RUNS  query runs per index, alternating the two (default 3): the table gives
#            each query's median time and the range of the per-run ratios, because
#            memory-bound timings on a shared machine vary from run to run
#   COLD=1   drop the page cache (needs root) before each query run, so each index is
#            read fresh: on kernels whose page cache holds files in large folios (ext4,
#            XFS; Linux 6.x) the mapped index then sits in 2 MiB pages, while a file
#            just written sits in 4 KiB pages and its queries miss the TLB far more
#   PAGES=1  then copy the big index twice, written 1 MiB and 8 MiB at a time (as
#            `seqfarm index` writes it), and query each copy at once: how much of it
#            the kernel maps in 2 MiB pages, and what that does to the queries
# Needs: bwa, samtools, seqan-apps (mason), GNU time; perf for cache misses (optional).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
threads=${THREADS:-2}
gbp=${GBP:-1.2}
bench_root=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}
work=$bench_root/large
contig=${CONTIG:-synth_7}
nreads=${READS:-100000}
mason=/usr/lib/seqan/bin
mkdir -p "$work"
genome=${1:-$work/large-$gbp.fa}
if [ ! -s "$genome" ]; then
  maker=${SEQFARM_SHARED_DATA:-$repo/../shared/data}/make-large-genome.py
  [ -r "$maker" ] || { echo "bench/index-large.sh: no $genome and no $maker to make it" >&2; exit 1; }
  python3 "$maker" "$genome" --gbp "$gbp"
fi
cargo build --release --quiet
cargo build --release --quiet -p seqfarm-fmindex --example query_speed
sf=$repo/target/release/seqfarm
query=$repo/target/release/examples/query_speed
name=$(basename "$genome" .fa)
bases=$(grep -v '^>' "$genome" | tr -d '\n' | wc -c)
read -r -a budgets <<<"${MEMORY:-$((bases * 133 / 100))}"
# build_name I: the name of the I-th budget's index and GNU time record (the first
# budget's is the genome's own name, which the query and alignment steps use).
build_name() {
  if [ "$1" = 0 ]; then echo "$name"; else echo "$name.mem-${budgets[$1]}"; fi
}

echo "# $(date -u +%Y-%m-%d) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), SIMD: $(grep -o -m1 'avx512f' /proc/cpuinfo || grep -o -m1 avx2 /proc/cpuinfo); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $genome: $bases bases"

# measure NAME CMD...: runs CMD under GNU time -v into $work/NAME.time; prints
# "wall_s cpu_s peak_kb".
measure() {
  local log=$work/$1.time name=$1; shift
  if ! /usr/bin/time -v -o "$log" "$@" >"$log.out" 2>&1; then
    cat "$log.out" >&2
    return 1
  fi
  times_of "$name"
}
# times_of NAME: "wall_s cpu_s peak_kb" from $work/NAME.time.
times_of() {
  awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); wall = (n == 3) ? t[1] * 3600 + t[2] * 60 + t[3] : t[1] * 60 + t[2] }
    /User time/ { cpu += $2 } /System time/ { cpu += $2 } /Maximum resident/ { kb = $2 }
    END { print wall, cpu, kb }' "$work/$1.time"
}
row() { # tool wall cpu kb bytes_on_disk
  awk -v t="$1" -v w="$2" -v c="$3" -v kb="$4" -v size="$5" -v b="$bases" \
    'BEGIN { printf "| %s | %.0f | %.0f | %.0f | %.2f | %.0f | %.2f |\n", t, w, c, kb / 1024, kb * 1024 / b, size / 1e6, size / b }'
}

echo
echo "## Build, $name"
echo
echo "| tool | wall s | CPU s | peak MB | peak bytes/base | index MB | index bytes/base |"
echo "|---|---:|---:|---:|---:|---:|---:|"
builds=()
for i in "${!budgets[@]}"; do
  budget=${budgets[$i]} build=$(build_name "$i")
  if [ "$budget" = default ]; then
    memory_args=() label="seqfarm index -t $threads (default --memory)"
  else
    memory_args=(--memory "$budget") label="seqfarm index -t $threads --memory $budget"
  fi
  if [ "${BUILD:-1}" = 1 ] || [ ! -s "$work/$build.seqfarm.time" ] || [ ! -s "$work/$build.sfi" ]; then
    measure "$build.seqfarm" "$sf" index --force -t "$threads" "${memory_args[@]}" -o "$work/$build" "$genome" >/dev/null
  fi
  read -r sf_s sf_cpu sf_kb < <(times_of "$build.seqfarm")
  sf_size=$(stat -c %s "$work/$build.sfi")
  row "$label" "$sf_s" "$sf_cpu" "$sf_kb" "$sf_size"
  builds+=("$sf_s $sf_cpu $sf_kb $sf_size")
done
if [ "${PEERS:-1}" = 1 ]; then
  mkdir -p "$work/bwa"
  measure "$name.bwa" bwa index -p "$work/bwa/$name" "$genome" >/dev/null
fi
if [ -s "$work/$name.bwa.time" ]; then
  read -r bwa_s bwa_cpu bwa_kb < <(times_of "$name.bwa")
  bwa_size=$(du -bc "$work/bwa/$name".{bwt,pac,ann,amb,sa} | tail -1 | cut -f1)
  row "bwa index" "$bwa_s" "$bwa_cpu" "$bwa_kb" "$bwa_size"
  echo
  echo "bwa index stages: $(grep '^\[bwa_index\]' "$work/$name.bwa.time.out" | paste -sd ';')"
  for i in "${!budgets[@]}"; do
    read -r sf_s sf_cpu sf_kb sf_size <<<"${builds[$i]}"
    awk -v m="${budgets[$i]}" -v s="$sf_s" -v b="$bwa_s" -v sc="$sf_cpu" -v bc="$bwa_cpu" -v sk="$sf_kb" -v bk="$bwa_kb" -v ss="$sf_size" -v bs="$bwa_size" \
      'BEGIN { printf "seqfarm (--memory %s) / bwa: wall time %.2fx (%.2fx of bwa'"'"'s CPU time, its wall time on a quiet core), CPU time %.2fx, peak memory %.2fx, index size %.2fx\n", m, s / b, s / bc, sc / bc, sk / bk, ss / bs }'
  done
fi
echo
for i in "${!budgets[@]}"; do
  build=$(build_name "$i")
  echo "--memory ${budgets[$i]}: stages: $(grep -o '([^)]*)$' "$work/$build.seqfarm.time.out")"
  echo "--memory ${budgets[$i]}: summary: $(grep '^seqfarm index' "$work/$build.seqfarm.time.out")"
  if [ "$i" != 0 ]; then
    if cmp -s "$work/$name.sfi" "$work/$build.sfi"; then same="byte-identical to"; else same="DIFFERENT from"; fi
    echo "--memory ${budgets[$i]}: index $same the --memory ${budgets[0]} index"
  fi
done

# The contig alone: the per-query baseline and the alignment baseline.
samtools faidx "$genome" "$contig" >"$work/$contig.fa"
"$sf" index --force -t "$threads" -o "$work/$contig" "$work/$contig.fa" 2>/dev/null
# Reads simulated from the contig: SMEM queries on both indexes (the same reads on each,
# rows *_fastq) and the alignment step.
reads=$work/$contig.150.$nreads.fq
truth=$work/$contig.150.$nreads.truth.sam
[ -s "$reads" ] ||
  "$mason/mason_simulator" -ir "$work/$contig.fa" -n "$nreads" --illumina-read-length 150 \
    --illumina-prob-mismatch-scale 2.5 --seed 11 -o "$reads" -oa "$truth" -q >/dev/null 2>&1

echo
echo "## Queries: $name index against $contig indexed alone (one thread, median of ${QUERY_RUNS:-3} runs each)"
echo
echo "| query | $contig s | $name s | ratio | per-run ratios | detail ($contig) | detail ($name) |"
echo "|---|---:|---:|---:|---|---|---|"
drop_cache() {
  [ "${COLD:-0}" = 1 ] || return 0
  sync
  echo 3 >/proc/sys/vm/drop_caches || { echo "COLD=1 needs root" >&2; exit 1; }
}
for run in $(seq "${QUERY_RUNS:-3}"); do
  drop_cache
  "$query" "$work/$contig.sfi" 1000000 20 mmap "$reads" >"$work/q.contig.$run.tsv"
  drop_cache
  "$query" "$work/$name.sfi" 1000000 20 mmap "$reads" >"$work/q.large.$run.tsv"
done
python3 "$repo/bench/query_ratio.py" "$work/q.contig" "$work/q.large" "${QUERY_RUNS:-3}" --details
echo
for run in contig large; do
  echo "$run index (first run), $(awk -F'\t' '$1 == "huge_pages" { print $3 }' "$work/q.$run.1.tsv")"
  # Loading, which the table leaves out: mapped (header only) and copied, every run.
  runs=()
  for i in $(seq "${QUERY_RUNS:-3}"); do runs+=("$work/q.$run.$i.tsv"); done
  awk -F'\t' -v run="$run" '$1 == "load_mmap" || $1 == "load_copy" { t[$1] = t[$1] " " $2 }
    END { printf "%s index, load s per run: mapped%s; copied%s\n", run, t["load_mmap"], t["load_copy"] }' \
    "${runs[@]}"
done
# Hardware cache-miss counts where the machine exposes them (virtual machines often
# do not: perf then prints "<not supported>" and the queries are not run again).
if command -v perf >/dev/null && perf stat -x, -e cache-misses true 2>&1 | grep -q '^[0-9]'; then
  for index in "$work/$contig.sfi" "$work/$name.sfi"; do
    misses=$(perf stat -x, -e cache-misses "$query" "$index" 1000000 20 2>&1 >/dev/null | awk -F, '/cache-misses/ { print $1 }')
    echo "cache misses, whole query run on $(basename "$index"): $misses"
  done
fi


if [ "${PAGES:-0}" = 1 ]; then
  echo
  echo "## Page size of a freshly written index: $name copied with dd, then queried at once"
  echo
  echo "| copy written | in 2 MiB pages | 1 M random 20-mer counts s | SMEMs | copy s |"
  echo "|---|---|---:|---|---:|"
  for bs in 1M 8M; do
    drop_cache
    copy=$work/$name.copy-$bs.sfi
    start=$(date +%s.%N)
    dd if="$work/$name.sfi" of="$copy" bs="$bs" status=none
    copied=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
    "$query" "$copy" 1000000 20 >"$work/q.copy-$bs.tsv"
    rm -f "$copy"
    awk -F'\t' -v bs="$bs" -v s="$copied" '{ v[$1] = $2; d[$1] = $3 }
      END { printf "| dd bs=%s | %s | %.3f | %s | %.1f |\n", bs, d["huge_pages"], v["count_random"], d["smems"], s }' \
      "$work/q.copy-$bs.tsv"
  done
fi

echo
echo "## Alignment: $nreads mason reads of 150 bp from $contig, on $contig alone and on $name"
echo
echo "| index | wall s | max RSS MB | reads | correct % | MAPQ>=1 mapped % / wrong | MAPQ>=10 | MAPQ>=20 | MAPQ>=30 |"
echo "|---|---:|---:|---:|---:|---|---|---|---|"
for index in "$contig" "$name"; do
  read -r wall _ kb < <(measure "align.$index" "$sf" align -p "$threads" -x "$work/$index" -U "$reads" -S "$work/out.$index.sam" --force)
  awk -v t="$index" -v wall="$wall" -v kb="$kb" -F'\t' '{
    printf "| %s | %.1f | %.0f | %d | %.3f | %.2f / %d | %.2f / %d | %.2f / %d | %.2f / %d |\n",
      t, wall, kb / 1024, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }' \
    < <(awk -f bench/align_eval.awk "$truth" "$work/out.$index.sam")
done
