#!/usr/bin/env bash
# Runs every command of two seqfarm binaries (say, before and after a change that must not
# change what the commands write) on the same inputs and compares what they write, byte
# for byte: standard output, every output file, and the exit status. Prints one line per
# run and exits 1 if any differs.
#
# With TIME=N (N >= 1), each run is then timed N times per binary, one after the other, with
# hyperfine (a warm-up run first), and the line gives the median wall seconds of both and new/old.
#
# usage: bench/compare-builds.sh OLD_BINARY NEW_BINARY
# env:   SEQFARM_BENCH_DATA (/tmp/seqfarm-bench): normal.bam, tumor.bam (make-bench-bams.sh)
#        and sites.vcf.gz (bench/make-snp-sites.sh) there (and normal.cram, tumor.cram:
#        see bench/snp-pileup.sh), and align/chr20.sfi with
#        align/chr20.150.100000.fq (bench/align.sh); SHARED (../shared/data) for the
#        protein search inputs. A run whose inputs are missing is reported as skipped;
#        one that fails with both binaries is reported, and counts as a difference.
#        THREADS (2): the threads of every run. ONLY (a regular expression): only the
#        runs whose names match it.
set -uo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: compare-builds.sh OLD_BINARY NEW_BINARY}
new=${2:?usage: compare-builds.sh OLD_BINARY NEW_BINARY}
bench=$(cd "${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}" && pwd)
shared=$(cd "${SHARED:-../shared/data}" 2>/dev/null && pwd || echo /nonexistent)
threads=${THREADS:-2}
time_runs=${TIME:-0}
only=${ONLY:-}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
normal=$bench/normal.bam; tumor=$bench/tumor.bam; sites=$bench/sites.vcf.gz
index=$bench/align/chr20; reads=$bench/align/chr20.150.100000.fq
proteins=$shared/proteins/mmseqs2_uniprot_sample
differ=0
# Each binary runs as `seqfarm` from a directory of its own on PATH, so that the command
# lines the outputs record (align's @PG) name it alike.
for side in old new; do
  mkdir -p "$work/bin-$side"; cp "${!side}" "$work/bin-$side/seqfarm"
done

# timing ARGS...: with TIME, "; old X s, new Y s, new/old Z" for `seqfarm ARGS`, the
# median of TIME runs of each binary (outputs in a scratch directory).
timing() {
  [ "$time_runs" -gt 0 ] || return 0
  local side commands=()
  for side in old new; do
    mkdir -p "$work/time-$side"
    commands+=("cd $work/time-$side && PATH=$work/bin-$side:\$PATH seqfarm $(printf '%q ' "${@//@OUT@/.}") > /dev/null 2>&1")
  done
  hyperfine --shell=bash --style none --warmup 1 --runs "$time_runs" --export-json "$work/time.json" \
    "${commands[@]}" > /dev/null 2>&1 || { echo "; timing failed"; return 0; }
  python3 - "$work/time.json" <<'PY'
import json, statistics, sys
old, new = (statistics.median(r["times"]) for r in json.load(open(sys.argv[1]))["results"])
print(f"; old {old:.2f} s, new {new:.2f} s, new/old {new / old:.3f}", end="")
PY
  rm -rf "$work/time-old" "$work/time-new"
}

# run NAME INPUTS... -- ARGS...: runs `BINARY ARGS` for both binaries in directories of
# their own (@OUT@ in ARGS names it) and compares stdout, exit status and files.
run() {
  local name=$1; shift
  [[ -z "$only" || $name =~ $only ]] || return 0
  local inputs=()
  while [ "$1" != "--" ]; do inputs+=("$1"); shift; done
  shift
  for input in "${inputs[@]}"; do
    [ -e "$input" ] || { printf '%-28s skipped (no %s)\n' "$name" "$input"; return; }
  done
  local side
  for side in old new; do
    mkdir -p "$work/$name/$side"
    (cd "$work/$name/$side" && PATH=$work/bin-$side:$PATH seqfarm "${@//@OUT@/.}" \
       > stdout 2> stderr; echo $? > status)
    rm -f "$work/$name/$side/stderr"
  done
  if diff -r -q "$work/$name/old" "$work/$name/new" > "$work/$name.diff"; then
    local status; status=$(cat "$work/$name/new/status")
    [ "$status" = 0 ] || { printf '%-28s FAILED in both (exit %s)\n' "$name" "$status"; differ=1; }
    [ "$status" = 0 ] && printf '%-28s identical (%s files)%s\n' "$name" \
      "$(find "$work/$name/new" -type f | wc -l)" "$(timing "$@")"
  else
    printf '%-28s DIFFERS\n' "$name"; sed 's/^/    /' "$work/$name.diff"; differ=1
  fi
  rm -rf "${work:?}/$name"
}

echo "# old: $old ($("$old" --version))"
echo "# new: $new ($("$new" --version))"
run flagstat "$normal" -- flagstat -t "$threads" "$normal"
run flagstat-json "$normal" -- flagstat -t "$threads" -O json "$normal"
run count-window "$normal" "$tumor" -- count -t "$threads" --window 10000 "$normal" "$tumor"
run count-options "$normal" -- count -t "$threads" --window 50000 -q 20 -p -D "$normal"
run depth "$normal" -- depth -t "$threads" --window 10000 -T 1,10,20 -o @OUT@/depth "$normal"
run depth-per-base "$normal" -- depth -t "$threads" --window 500000 --per-base -o @OUT@/d "$normal"
run snp-pileup "$sites" "$normal" "$tumor" -- \
  snp-pileup -t "$threads" --force "$sites" @OUT@/pileup.csv "$normal" "$tumor"
run snp-pileup-options "$sites" "$normal" "$tumor" -- \
  snp-pileup -t "$threads" --force -q 15 -Q 20 -P 100 -r 10,0 -g "$sites" @OUT@/p.csv.gz "$normal" "$tumor"
run snp-pileup-cram "$sites" "$bench/normal.cram" "$bench/tumor.cram" -- \
  snp-pileup -t "$threads" --force "$sites" @OUT@/pileup.csv "$bench/normal.cram" "$bench/tumor.cram"
run search "$proteins/QUERY.fasta.gz" -- \
  search -t "$threads" "$proteins/QUERY.fasta.gz" "$proteins/DB.fasta.gz"
run search-outfmt7 "$proteins/QUERY.fasta.gz" -- \
  search -t "$threads" --outfmt "7 std qlen slen qcovs btop" --top 3 \
  "$proteins/QUERY.fasta.gz" "$proteins/DB.fasta.gz"
run search-scores-only "$proteins/QUERY.fasta.gz" -- \
  search -t "$threads" --scores-only "$proteins/QUERY.fasta.gz" "$proteins/DB.fasta.gz"
run search-json "$proteins/QUERY.fasta.gz" -- \
  search -t "$threads" --json --top 2 -o @OUT@/hits.json "$proteins/QUERY.fasta.gz" "$proteins/DB.fasta.gz"
run align "$index.sfi" "$reads" -- align -p "$threads" -x "$index" -U "$reads" -S @OUT@/out.sam
run align-sort "$index.sfi" "$reads" -- \
  align -p "$threads" -x "$index" -U "$reads" --sort -o @OUT@/out.bam
run index-chrM "$bench/align/real.NA12878_chrM.fa" -- index -t "$threads" -o @OUT@/chrM "$bench/align/real.NA12878_chrM.fa"
run locate "$index.sfi" -- locate -x "$index" ACGTACGTAC GATTACAGATTACA
exit $differ
