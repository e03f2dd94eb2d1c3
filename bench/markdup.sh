#!/usr/bin/env bash
# Times `seqfarm markdup` side by side with the duplicate markers it replaces, on a
# coordinate-sorted BAM with simulated PCR and optical duplicates (bench/make-markdup-data.sh):
#
#   Picard      PicardCommandLine MarkDuplicates (defaults; VALIDATION_STRINGENCY=SILENT)
#   samtools    samtools collate -@T -O | fixmate -m -@T | sort -@T | markdup -@T, as users
#               run it on a sorted BAM
#   sambamba    sambamba markdup -t T
#   biobambam2  bammarkduplicates markthreads=T
#   seqfarm     seqfarm markdup -t T IN -o OUT --metrics M (only when the binary has markdup)
#
# in alternating rounds; prints per tool the median wall and CPU (user + system) seconds,
# the peak memory (max RSS; for a pipeline the sum of its stages' peaks), the records
# flagged 0x400, and how many of them differ from Picard's set (QNAME, FLAG, RNAME, POS);
# then the fastest peer's wall time over seqfarm's (above 1: seqfarm is faster). seqfarm's set
# must equal Picard's.
#
# Second table, when `seqfarm align --help` has --markdup: `seqfarm align --sort
# --markdup` (sorted, indexed, duplicates marked, in one run) next to `bowtie2 | samtools
# sort`, Picard MarkDuplicates and `samtools index`, and next to `bowtie2 | samtools
# fixmate -m | sort | markdup`, on the pairs of the small duplicate BAM
# (normal.dup.small.{1,2}.fq) with the chr20 indexes bench/align.sh leaves under
# $SEQFARM_BENCH_DATA/align (the reads carry no read group: one library, where the BAM
# has two); seqfarm's flags checked against Picard's on seqfarm's own
# `align --sort` output.
#
# usage: bench/markdup.sh [BAM] [THREADS]   (default: $SEQFARM_BENCH_DATA/markdup/normal.dup.bam, 2)
# env:   ROUNDS (default 3), SEQFARM_BIN (a seqfarm to run; default: this checkout's
#        release build, built first), SEQFARM_BENCH_DATA (default /tmp/seqfarm-bench),
#        ALIGN (0: skip the second table), MARKDUP (0: skip the first)
# Needs (Debian; ./debian-packages.sh picard-tools samtools sambamba biobambam2 bowtie2 time):
#        PicardCommandLine, samtools, sambamba, bammarkduplicates, bowtie2 (second table),
#        GNU time; python3. Data: bench/make-markdup-data.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bench=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}
bam=$(realpath "${1:-$bench/markdup/normal.dup.bam}")
threads=${2:-2}
rounds=${ROUNDS:-3}
[ -f "$bam" ] || { echo "missing $bam: run bench/make-markdup-data.sh first" >&2; exit 1; }
for tool in PicardCommandLine samtools sambamba bammarkduplicates python3 /usr/bin/time; do
  command -v "$tool" >/dev/null || {
    echo "bench/markdup.sh needs $tool: ./debian-packages.sh picard-tools samtools sambamba biobambam2 time" >&2
    exit 1
  }
done
if [ -n "${SEQFARM_BIN:-}" ]; then
  sf=$(realpath "$SEQFARM_BIN")
else
  cargo build --release --quiet -p seqfarm-cli
  sf=$PWD/target/release/seqfarm
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# run_rounds TABLE NAME... : runs each named command (the shell text in cmd[NAME]) once
# per round, in turn. In a command, %1, %2, ... before a program stand for GNU time
# writing its peak RSS to the group's file; the groups run one after another, the
# programs of a group at once (a pipeline), so the command's peak is the largest group's
# sum. Each run's wall, user and system seconds go to $tmp/TABLE.NAME.times.
declare -A cmd
run_rounds() {
  local table=$1; shift
  local r n text g
  for ((r = 1; r <= rounds; r++)); do
    for n in "$@"; do
      rm -rf "$tmp/run" && mkdir "$tmp/run"
      text=${cmd[$n]}
      for g in 1 2 3 4; do
        text=${text//%$g /\/usr\/bin\/time -f %M -a -o $tmp/run/rss.$g }
      done
      (cd "$tmp/run" && /usr/bin/time -f '%e %U %S' -a -o "$tmp/$table.$n.times" bash -c "$text" \
        >"$tmp/$table.$n.log" 2>&1) || { echo "$n failed:" >&2; cat "$tmp/$table.$n.log" >&2; exit 1; }
      for g in "$tmp"/run/rss.*; do awk '{s += $1} END {print s}' "$g"; done \
        | sort -n | tail -1 >>"$tmp/$table.$n.peak"
      # The last round's outputs stay for the checks.
      rm -rf "$tmp/$table.$n.out" && mv "$tmp/run" "$tmp/$table.$n.out"
    done
  done
}

# dup_set BAM: the records flagged 0x400 (QNAME, FLAG, RNAME, POS), sorted.
dup_set() { samtools view -f 0x400 "$1" | cut -f1-4 | LC_ALL=C sort; }

# summary TABLE NAME... : one line per command (median wall, CPU, peak RSS, 0x400 records,
# and the records whose flag differs from those of the command base[NAME], Picard by
# default), from $tmp/TABLE.NAME.* and the BAM each command wrote,
# $tmp/TABLE.NAME.out/out.bam; then, when the last command is seqfarm's, the fastest
# other command's (not seqfarm's) wall time over it.
declare -A base
summary() {
  local table=$1; shift
  local n b
  for n in "$@"; do
    dup_set "$tmp/$table.$n.out/out.bam" >"$tmp/$table.$n.dups"
  done
  for n in "$@"; do
    b=${base[$n]:-Picard}
    printf '%s\t%s\t%s\t%s\n' "$n" "$(wc -l <"$tmp/$table.$n.dups")" \
      "$(LC_ALL=C comm -3 "$tmp/$table.$b.dups" "$tmp/$table.$n.dups" | wc -l)" "$b"
  done >"$tmp/$table.flags"
  python3 - "$tmp" "$table" "$@" <<'PY'
import statistics, sys
tmp, table, names = sys.argv[1], sys.argv[2], sys.argv[3:]
flags = {}
for line in open(f"{tmp}/{table}.flags"):
    n, d, x, b = line.rstrip("\n").split("\t")
    flags[n] = (int(d), int(x), b)
rows = {}
for n in names:
    t = [list(map(float, l.split())) for l in open(f"{tmp}/{table}.{n}.times")]
    peak = [int(l) for l in open(f"{tmp}/{table}.{n}.peak")]
    rows[n] = (statistics.median(x[0] for x in t), statistics.median(x[1] + x[2] for x in t),
               max(peak) / 1024)
width = max(len(n) for n in names) + 1
print(f"{'command':<{width}} {'wall_s':>8} {'cpu_s':>8} {'peak_MB':>8} {'dup_records':>12} {'differ':>8}  from")
for n in names:
    w, c, m = rows[n]
    d, x, b = flags[n]
    print(f"{n:<{width}} {w:8.2f} {c:8.2f} {m:8.0f} {d:12d} {x:8d}  {b if b != n else '-'}")
s = names[-1]
if s.startswith("seqfarm"):
    fastest = min((n for n in names if not n.startswith("seqfarm")), key=lambda n: rows[n][0])
    d, x, b = flags[s]
    print(f"# {fastest} / {s}: wall {rows[fastest][0] / rows[s][0]:.2f}x, "
          f"peak memory {rows[fastest][2] / rows[s][2]:.2f}x; "
          f"flags {'identical to' if x == 0 else 'DIFFERENT from'} {b}'s")
PY
}

. bench/machine.sh
echo "# $(date -u +%F) $(nproc) cores, $(machine); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $bam: $(samtools view -c "$bam") records, $(awk -v b="$(stat -c %s "$bam")" 'BEGIN {printf "%.0f", b / 1e6}') MB; $threads threads; median of $rounds rounds"
echo "# $(dpkg-query -W -f '${Package} ${Version}, ' picard-tools samtools sambamba biobambam2 2>/dev/null)$("$sf" --version)"
if [ "${MARKDUP:-1}" != 0 ]; then
  names=(Picard samtools sambamba biobambam2)
  cmd[Picard]="%1 PicardCommandLine MarkDuplicates I=$bam O=out.bam M=metrics.txt TMP_DIR=. VALIDATION_STRINGENCY=SILENT"
  cmd[samtools]="%1 samtools collate -@$threads -O $bam collate | %1 samtools fixmate -m -@$threads - - \
    | %1 samtools sort -@$threads - | %1 samtools markdup -@$threads - out.bam"
  cmd[sambamba]="%1 sambamba markdup -t $threads --tmpdir=. $bam out.bam"
  cmd[biobambam2]="%1 bammarkduplicates I=$bam O=out.bam M=metrics.txt markthreads=$threads tmpfile=./bmd"
  if "$sf" markdup --help >/dev/null 2>&1; then
    names+=("seqfarm -t $threads")
    cmd["seqfarm -t $threads"]="%1 $sf markdup -t $threads $bam -o out.bam --metrics metrics.txt"
  else
    echo "# $sf has no markdup command: peers only"
  fi
  run_rounds md "${names[@]}"
  summary md "${names[@]}"
fi

[ "${ALIGN:-1}" != 0 ] || exit 0
if ! "$sf" align --help 2>/dev/null | grep -q -- --markdup; then
  echo "# $sf align has no --markdup: no align table"
  exit 0
fi
work=$bench/align
r1=$bench/markdup/normal.dup.small.1.fq
r2=$bench/markdup/normal.dup.small.2.fq
for f in "$work/chr20.sfi" "$work/chr20.bt2.1.bt2" "$r1" "$r2"; do
  [ -e "$f" ] || { echo "missing $f: run bench/align.sh and bench/make-markdup-data.sh first" >&2; exit 1; }
done
command -v bowtie2 >/dev/null || { echo "bench/markdup.sh needs bowtie2" >&2; exit 1; }
echo
echo "# align + sort + index + duplicates marked: $(($(wc -l <"$r1") / 4)) pairs of 2x150 bp (normal.dup.small), chr20; $threads threads"
cmd["seqfarm align --sort --markdup"]="%1 $sf align -p $threads -x $work/chr20 -1 $r1 -2 $r2 \
  -o out.bam --sort --markdup --markdup-metrics metrics.txt"
cmd["bowtie2|sort, Picard, index"]="%1 bowtie2 -p $threads -x $work/chr20.bt2 -1 $r1 -2 $r2 \
  | %1 samtools sort -@$threads -m 768M -o sorted.bam - && %2 PicardCommandLine MarkDuplicates \
  I=sorted.bam O=out.bam M=metrics.txt TMP_DIR=. VALIDATION_STRINGENCY=SILENT && %3 samtools index out.bam"
cmd["bowtie2|fixmate|sort|markdup"]="%1 bowtie2 -p $threads -x $work/chr20.bt2 -1 $r1 -2 $r2 \
  | %1 samtools fixmate -m -@$threads - - | %1 samtools sort -@$threads -m 768M - \
  | %1 samtools markdup -@$threads --write-index - out.bam"
# seqfarm's own sorted BAM marked by Picard: the set seqfarm's flags must equal.
cmd["seqfarm align --sort, Picard"]="%1 $sf align -p $threads -x $work/chr20 -1 $r1 -2 $r2 \
  -o sorted.bam --sort && %2 PicardCommandLine MarkDuplicates I=sorted.bam O=out.bam M=metrics.txt \
  TMP_DIR=. VALIDATION_STRINGENCY=SILENT"
names=("bowtie2|sort, Picard, index" "bowtie2|fixmate|sort|markdup" "seqfarm align --sort, Picard"
  "seqfarm align --sort --markdup")
run_rounds al "${names[@]}"
base["bowtie2|sort, Picard, index"]="bowtie2|sort, Picard, index"
base["bowtie2|fixmate|sort|markdup"]="bowtie2|sort, Picard, index"
base["seqfarm align --sort, Picard"]="seqfarm align --sort, Picard"
base["seqfarm align --sort --markdup"]="seqfarm align --sort, Picard"
summary al "${names[@]}"
