#!/usr/bin/env bash
# Thread scaling of every farm command, measured and predicted: runs align, snp-pileup,
# flagstat, count and search at each thread count with `--stats`, and prints for each
# run the wall time, the speedup over one thread, the farm's parallel efficiency (worker
# busy time over threads × wall) and its scaling ceiling (how many workers one master
# can feed: worker time per task over master time per task; docs/FARM.md).
#
# usage: bench/scaling.sh [COMMAND...]   (default: align snp-pileup flagstat count search;
#        also align-gz (the reads gzipped), align-pairs (READS as mate 1, READS2 as
#        mate 2), snp-pileup-g, snp-pileup-P (-P 100) and
#        count-sparse (SPARSE_BAM, default the BRCA panel BAM of ../shared/data, in
#        whole-genome windows))
# env:   THREADS (default "1 2"; e.g. "1 2 4 8 16"), ROUNDS (default 1: the fastest round
#        is kept), SEQFARM_SHARED_DATA (default ../shared/data), SEQFARM_BENCH_DATA
#        (default /tmp/seqfarm-bench), BUILD_FLAGS (extra cargo build flags), and the
#        inputs, each defaulting to the larger data when present, else to tests/data:
#        BAM (flagstat, count; default $SEQFARM_BENCH_DATA/normal.bam),
#        NORMAL, TUMOR, SITES (snp-pileup; default $SEQFARM_BENCH_DATA/{normal,tumor}.bam
#        and sites-chr20.vcf.gz, else the chr20 slices in $SEQFARM_SHARED_DATA/snp-pileup),
#        QUERY, DATABASE (search; default $SEQFARM_BENCH_DATA/swissprot2014.faa.gz),
#        INDEX, READS (align: a seqfarm index prefix and its reads; default the chr20
#        index and 100,000 reads in $SEQFARM_BENCH_DATA/align when present), else
#        REFERENCE, READS (indexed here; default SARS-CoV-2 in $SEQFARM_SHARED_DATA/reads),
#        READS2 (align-pairs: the mate 2 file of READS), WINDOW (count; default 10000),
#        SEQFARM (a seqfarm binary to run instead of building one here).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
shared=${SEQFARM_SHARED_DATA:-../shared/data}
bench=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}
threads=${THREADS:-1 2}
rounds=${ROUNDS:-1}
window=${WINDOW:-10000}
small=$repo/tests/data

# The first of the given files that exists.
first() {
  for f in "$@"; do
    if [ -f "$f" ]; then echo "$f"; return; fi
  done
  echo "bench/scaling.sh: none of $* exists" >&2
  exit 1
}
bam=${BAM:-$(first "$bench/normal.bam" "$small/bam/chm1.bam")}
normal=${NORMAL:-$(first "$bench/normal.bam" "$shared/snp-pileup/normal_20_1-4M.bam" "$small/snp-pileup/normal_slice.bam")}
tumor=${TUMOR:-$(first "$bench/tumor.bam" "$shared/snp-pileup/tumor_20_1-4M.bam" "$small/snp-pileup/tumor_slice.bam")}
if [ -z "${SITES:-}" ]; then
  case $normal in
    "$bench"/*) sites=$(first "$bench/sites-chr20.vcf.gz") ;;
    "$shared"/*) sites=$(first "$shared/snp-pileup/sites_region.vcf.gz") ;;
    *) sites=$(first "$small/snp-pileup/sites_slice.vcf.gz") ;;
  esac
else
  sites=$SITES
fi
query=${QUERY:-$small/sw_q10.fa}
database=${DATABASE:-$(first "$bench/swissprot2014.faa.gz" "$small/sw_db1500.fa.gz")}
reference=${REFERENCE:-$(first "$shared/reads/SARSCoV2_SRR11728627/NC_045512.2.fasta" "$small/index_ref.fa.gz")}
if [ -z "${INDEX:-}" ] && [ -z "${REFERENCE:-}" ] && [ -f "$bench/align/chr20.sfi" ]; then
  INDEX=$bench/align/chr20
  READS=${READS:-$bench/align/chr20.150.100000.fq}
fi
if [ -n "${INDEX:-}" ]; then
  reads=${READS:?READS must be given with INDEX}
elif [ -z "${READS:-}" ]; then
  case $reference in
    "$small"/*) reads=$small/align_reads_150.fq.gz ;;
    *) reads=$(first "$shared/reads/SARSCoV2_SRR11728627/SRR11728627.fq.gz") ;;
  esac
else
  reads=$READS
fi
sparse_bam=${SPARSE_BAM:-$shared/alignments/human_BRCApanel_noSEQ_covtobed/panel_01.bam}
[ $# -gt 0 ] || set -- align snp-pileup flagstat count search
command -v python3 >/dev/null || { echo "bench/scaling.sh needs python3" >&2; exit 1; }

if [ -n "${SEQFARM:-}" ]; then
  sf=$(realpath "$SEQFARM")
else
  # shellcheck disable=SC2086
  cargo build --release --quiet ${BUILD_FLAGS:-}
  sf=$repo/target/release/seqfarm
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
index=${INDEX:-$tmp/ref}
if [ -z "${INDEX:-}" ] && printf '%s\n' "$@" | grep -q '^align'; then
  "$sf" index -o "$tmp/ref" "$reference" 2>/dev/null
fi

if printf '%s\n' "$@" | grep -qx align-gz; then
  gzip -c "$reads" > "$tmp/reads.gz"
fi

# The command line of COMMAND at N threads, writing its output under $tmp.
command_line() {
  local name=$1 n=$2
  case $name in
    align) echo "align -p $n -x $index -U $reads -S $tmp/out" ;;
    snp-pileup) echo "snp-pileup -t $n $sites $tmp/out $normal $tumor" ;;
    flagstat) echo "flagstat -t $n -o $tmp/out $bam" ;;
    count) echo "count -t $n --window $window -o $tmp/out $bam" ;;
    search) echo "search -t $n -o $tmp/out $query $database" ;;
    # Variants whose master does other work: gzipped reads, compressed or pseudo-SNP
    # output, whole-genome windows over a sparse BAM.
    align-gz) echo "align -p $n -x $index -U $tmp/reads.gz -S $tmp/out" ;;
    align-pairs) echo "align -p $n -x $index -1 $reads -2 ${READS2:?align-pairs needs READS2} -S $tmp/out" ;;
    snp-pileup-g) echo "snp-pileup -g --force -t $n $sites $tmp/out $normal $tumor" ;;
    snp-pileup-P) echo "snp-pileup -P 100 -t $n $sites $tmp/out $normal $tumor" ;;
    count-sparse) echo "count -t $n --window $window -o $tmp/out $sparse_bam" ;;
    *) echo "bench/scaling.sh: unknown command $name" >&2; exit 1 ;;
  esac
}

echo "# $(date -u +%F) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# threads: $threads; rounds: $rounds (fastest kept)"
echo "# inputs: BAM=$bam NORMAL=$normal TUMOR=$tumor SITES=$sites QUERY=$query DATABASE=$database INDEX=${INDEX:-(built from $reference)} READS=$reads${READS2:+ READS2=$READS2}"
: > "$tmp/runs.tsv"
for name in "$@"; do
  for n in $threads; do
    for round in $(seq "$rounds"); do
      rm -f "$tmp/out"
      stats=$tmp/stats-$name-$n-$round.json
      start=$(date +%s.%N)
      # shellcheck disable=SC2046
      "$sf" $(command_line "$name" "$n") --stats "$stats" >/dev/null 2>"$tmp/stderr" || {
        echo "bench/scaling.sh: $name at $n threads failed:" >&2; cat "$tmp/stderr" >&2; exit 1; }
      end=$(date +%s.%N)
      printf '%s\t%s\t%s\t%s\n' "$name" "$n" "$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }')" "$stats" >> "$tmp/runs.tsv"
    done
  done
done

python3 - "$tmp/runs.tsv" <<'PY'
import json, sys
best = {}
for line in open(sys.argv[1]):
    name, n, wall, path = line.rstrip("\n").split("\t")
    key = (name, int(n))
    if key not in best or float(wall) < best[key][0]:
        best[key] = (float(wall), json.load(open(path)))
def fmt(x, spec):
    return "-" if x is None else format(x, spec)
print(f"{'command':<11} {'threads':>7} {'wall s':>8} {'speedup':>7} {'tasks':>7} "
      f"{'efficiency':>10} {'ceiling':>8}  master emit/collect/stalled/idle s")
for (name, n), (wall, s) in best.items():
    one = best.get((name, 1))
    speedup = one[0] / wall if one else None
    m = s["master"]
    print(f"{name:<11} {n:>7} {wall:>8.3f} {fmt(speedup, '>7.2f')} {s['tasks']:>7} "
          f"{fmt(s['efficiency'], '>10.2f')} {fmt(s['ceiling'], '>8.1f')}  "
          f"{m['emit_s']:.3f}/{m['collect_s']:.3f}/{m['stalled_s']:.3f}/{m['idle_s']:.3f}")
PY
