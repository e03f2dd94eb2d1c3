#!/usr/bin/env bash
# Accuracy and speed of `seqfarm align` next to bowtie2 (end-to-end and --local),
# bwa mem and minimap2 -ax sr, on reads simulated from real genomes, plus the mapping
# rate and agreement with bwa mem on real runs; and paired-end: the same next to
# bowtie2, bwa mem, minimap2 -ax sr and strobealign on simulated pairs, plus the
# concordant rate of each tool on real paired runs. Prints markdown tables.
#
#   bench/align.sh [GENOME_DIR] [READS_DIR]
#   MODE=paired bench/align.sh      # paired-end tables only (MODE: single, paired, both)
#
# GENOME_DIR defaults to $SEQFARM_SHARED_DATA/genomes, READS_DIR to
# $SEQFARM_SHARED_DATA/reads ($SEQFARM_SHARED_DATA: ../shared/data relative to the
# repository). Generated data (simulated reads, every tool's index)
# is kept under $SEQFARM_BENCH_DATA/align (default /tmp/seqfarm-bench/align) and
# reused. Environment: THREADS (2), READS (100000 per set), REPS (3 timed runs per
# tool, alternating, median reported), GENOMES (chr20 athal celegans mtb), LENGTHS
# (150 100), MODE (both), PAIRS (100000 per paired set), PE_GENOMES (chr20 athal
# celegans; empty: only the real runs), PE_TOOLS (seqfarm bowtie2 bwa-mem minimap2-sr
# strobealign; bowtie2-very-sensitive may be added, seqfarm-calibrated (seqfarm with its
# own calibrated MAPQ, --mapq calibrated) and seqfarm-before (the seqfarm binary
# SEQFARM_BEFORE, an earlier build, on the same reads); TOOLS likewise for single-end),
# PE_SEED
# (mason's seed for the simulated pairs, 17; another draws another read set), BOWTIE2 (the
# bowtie2 to run, default the one on PATH: Debian's 2.5.0 flags many proper pairs
# discordant, a bug fixed in 2.5.1, so for concordant rates point it at a newer build's
# `bowtie2` script), SEQFARM (a prebuilt seqfarm to run instead of building this
# checkout's), SEQFARM_ARGS (options added to every `seqfarm align`). Needs seqan-apps
# (mason), bowtie2, bwa, minimap2, samtools, GNU time, python3; strobealign is installed from crates.io (cargo install strobealign) into
# $SEQFARM_BENCH_DATA/strobealign when missing.
#
# Simulation: mason_variator --snp-rate 0.001 --small-indel-rate 0.0001 gives the
# sample's variants; mason_simulator draws single-end reads from the variant genome
# with --illumina-prob-mismatch-scale 2.5 and writes the true alignments. A read is
# correct when its primary alignment is on the true contig and strand, leftmost
# position within 50 bp of the true one (bench/align_eval.awk).
#
# Paired-end: mason_simulator draws 2x150 pairs (--fragment-mean-size 400
# --fragment-size-std-dev 60) from the same variant genome; each mate is scored as a
# single read is, and "concordant" is the share of pairs the tool flags proper (0x2).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
shared=${SEQFARM_SHARED_DATA:-$repo/../shared/data}
genomes_dir=${1:-$shared/genomes}
reads_dir=${2:-$shared/reads}
[ -d "$genomes_dir" ] || { echo "no genome directory $genomes_dir (give it as the first argument)" >&2; exit 1; }
work=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}/align
threads=${THREADS:-2}
nreads=${READS:-100000}
reps=${REPS:-3}
genomes=${GENOMES:-chr20 athal celegans mtb}
lengths=${LENGTHS:-150 100}
mode=${MODE:-both}
npairs=${PAIRS:-100000}
pe_seed=${PE_SEED:-17}
bowtie2=${BOWTIE2:-bowtie2}
pe_genomes=${PE_GENOMES-chr20 athal celegans}
bench_root=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}
strobealign_version=0.19.1
strobealign=$bench_root/strobealign/bin/strobealign
mason=/usr/lib/seqan/bin
case $mode in single | paired | both) ;; *) echo "MODE must be single, paired or both" >&2; exit 1 ;; esac
mkdir -p "$work"
if [ -n "${SEQFARM:-}" ]; then
  sf=$SEQFARM
else
  cargo build --release --quiet
  sf=$repo/target/release/seqfarm
fi
# Extra options for every `seqfarm align` run (e.g. SEQFARM_ARGS="-X 10000").
sf_args=${SEQFARM_ARGS:-}
eval_awk=$repo/bench/align_eval.awk
. "$repo/bench/simulated-pairs.sh"

genome_file() {
  case $1 in
    chr20) echo "$genomes_dir/human_GRCh37_chr20.fa.gz" ;;
    athal) echo "$genomes_dir/Athaliana_TAIR10_chr1.fna.gz" ;;
    celegans) echo "$genomes_dir/Celegans_ce2_chrX.fa.gz" ;;
    mtb) echo "$genomes_dir/Mtuberculosis_H37Rv.fna.gz" ;;
    *) echo "unknown genome $1" >&2; exit 1 ;;
  esac
}

# Builds every tool's index of a FASTA once: PREFIX.{sfi,bwa.*,bt2.*,mmi}.
index_all() {
  local fa=$1 prefix=$2
  # Rebuilt too when this seqfarm cannot load it (an index of an older format).
  { [ -s "$prefix.sfi" ] && "$sf" locate -x "$prefix" --max-hits 0 ACGT >/dev/null 2>&1; } ||
    "$sf" index -t "$threads" -o "$prefix" "$fa" --force >/dev/null 2>&1
  [ -s "$prefix.bwa.bwt" ] || bwa index -p "$prefix.bwa" "$fa" >/dev/null 2>&1
  [ -s "$prefix.bt2.1.bt2" ] || [ -s "$prefix.bt2.1.bt2l" ] ||
    bowtie2-build --threads "$threads" "$fa" "$prefix.bt2" >/dev/null 2>&1
  [ -s "$prefix.mmi" ] || minimap2 -x sr -d "$prefix.mmi" "$fa" >/dev/null 2>&1
}

# strobealign's index of FASTA for 150 bp reads (FASTA.r150.sti).
strobealign_index() {
  [ -s "$1.r150.sti" ] || "$strobealign" --create-index -t "$threads" -r 150 "$1" >/dev/null 2>&1
}

# The command line of TOOL mapping READS to PREFIX into OUT (SAM).
command_for() {
  local tool=$1 prefix=$2 reads=$3 out=$4
  case $tool in
    seqfarm) echo "$sf align $sf_args -p $threads -x $prefix -U $reads -S $out --force" ;;
    seqfarm-local) echo "$sf align --local $sf_args -p $threads -x $prefix -U $reads -S $out --force" ;;
    seqfarm-calibrated) echo "$sf align --mapq calibrated $sf_args -p $threads -x $prefix -U $reads -S $out --force" ;;
    seqfarm-before) echo "$SEQFARM_BEFORE align $sf_args -p $threads -x $prefix -U $reads -S $out --force" ;;
    bowtie2) echo "$bowtie2 -p $threads -x $prefix.bt2 -U $reads -S $out" ;;
    bowtie2-local) echo "$bowtie2 --local -p $threads -x $prefix.bt2 -U $reads -S $out" ;;
    bwa-mem) echo "bwa mem -t $threads $prefix.bwa $reads -o $out" ;;
    minimap2-sr) echo "minimap2 -ax sr -t $threads $prefix.mmi $reads -o $out" ;;
  esac
}

tools=${TOOLS:-seqfarm bowtie2 seqfarm-local bowtie2-local bwa-mem minimap2-sr}

# The paired-end command line of TOOL mapping R1 and R2 to PREFIX (its FASTA: FA) into OUT.
pe_command_for() {
  local tool=$1 prefix=$2 fa=$3 r1=$4 r2=$5 out=$6
  case $tool in
    seqfarm) echo "$sf align $sf_args -p $threads -x $prefix -1 $r1 -2 $r2 -S $out --force" ;;
    seqfarm-calibrated) echo "$sf align --mapq calibrated $sf_args -p $threads -x $prefix -1 $r1 -2 $r2 -S $out --force" ;;
    seqfarm-before) echo "$SEQFARM_BEFORE align $sf_args -p $threads -x $prefix -1 $r1 -2 $r2 -S $out --force" ;;
    bowtie2) echo "$bowtie2 -p $threads -x $prefix.bt2 -1 $r1 -2 $r2 -S $out" ;;
    bowtie2-very-sensitive) echo "$bowtie2 --very-sensitive -p $threads -x $prefix.bt2 -1 $r1 -2 $r2 -S $out" ;;
    bwa-mem) echo "bwa mem -t $threads $prefix.bwa $r1 $r2 -o $out" ;;
    minimap2-sr) echo "minimap2 -ax sr -t $threads $prefix.mmi $r1 $r2 -o $out" ;;
    # With a prebuilt index where there is one (simulated sets), else built on the fly.
    strobealign) if [ -s "$fa.r150.sti" ]; then
        echo "$strobealign --use-index -r 150 -t $threads $fa $r1 $r2 -o $out"
      else
        echo "$strobealign -t $threads $fa $r1 $r2 -o $out"
      fi ;;
  esac
}

pe_tools=${PE_TOOLS:-seqfarm bowtie2 bwa-mem minimap2-sr strobealign}

# How well each MAPQ band of seqfarm's and bwa mem's output (those of them in the
# list $2) predicts the errors in it, against the truth $1.
print_calibration() {
  local truth=$1 listed=$2 tool
  for tool in seqfarm seqfarm-calibrated bwa-mem; do
    if [[ " $listed " == *" $tool "* ]]; then
      python3 "$repo/bench/mapq_calibration.py" "$truth" "$work/out.$tool.sam" "$tool"
      echo
    fi
  done
}

# Runs every tool of $run_tools REPS times, alternating, with the command lines
# `$command_of TOOL ARGS... OUT`; leaves "tool wall user rss" lines (medians) in
# $work/times.txt and each tool's last SAM in $work/out.TOOL.sam.
run_tools=$tools
command_of=command_for
time_tools() {
  : > "$work/times.raw"
  for rep in $(seq "$reps"); do
    for tool in $run_tools; do
      local cmd
      cmd=$($command_of "$tool" "$@" "$work/out.$tool.sam")
      /usr/bin/time -f "$tool %e %U %M" -a -o "$work/times.raw" $cmd >/dev/null 2>"$work/err.$tool.txt" ||
        { echo "$tool failed:"; cat "$work/err.$tool.txt"; exit 1; } >&2
    done
  done
  awk '{ w[$1] = w[$1] " " $2; u[$1] = u[$1] " " $3; m[$1] = ($4 > m[$1] ? $4 : m[$1]) }
    function median(s,   a, n, i, j, t) { n = split(s, a, " ")
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return a[int((n + 1) / 2)] }
    END { for (t in w) print t, median(w[t]), median(u[t]), m[t] }' "$work/times.raw" > "$work/times.txt"
}

# The genome's FASTA and the simulated sample's variants, made once.
prepare_genome() {
  local g=$1 fa=$work/$1.fa
  [ -s "$fa" ] || zcat "$(genome_file "$g")" > "$fa"
  [ -s "$work/$g.var.vcf" ] ||
    "$mason/mason_variator" -ir "$fa" -ov "$work/$g.var.vcf" --snp-rate 0.001 \
      --small-indel-rate 0.0001 --seed 7 -q >/dev/null 2>&1
  index_all "$fa" "$work/$g"
}

echo "# seqfarm align benchmark"
echo
. bench/machine.sh
cpu=$(machine)
echo "$(date -u +%Y-%m-%d), $(nproc) cores ($cpu), $threads threads, $reps alternating runs per tool (median wall time), load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
uses_strobealign=false
[ "$mode" != single ] && [[ " $pe_tools " == *" strobealign "* ]] && uses_strobealign=true
if $uses_strobealign && [ ! -x "$strobealign" ]; then
  cargo install strobealign --version "$strobealign_version" --locked --quiet --root "$bench_root/strobealign" >&2
fi
strobealign_v=""
! $uses_strobealign || strobealign_v=", $("$strobealign" --version)"
echo "Versions: $("$sf" --version), $("$bowtie2" --version 2>/dev/null | head -1 | awk '{print "bowtie2 " $3}'), bwa $(bwa 2>&1 | awk '/Version/ {print $2}'), minimap2 $(minimap2 --version)$strobealign_v"
echo
if [ "$mode" != paired ]; then
  run_tools=$tools command_of=command_for
  for g in $genomes; do
    fa=$work/$g.fa
    prepare_genome "$g"
    for len in $lengths; do
      reads=$work/$g.$len.$nreads.fq
      truth=$work/$g.$len.$nreads.truth.sam
      [ -s "$reads" ] ||
        "$mason/mason_simulator" -ir "$fa" -iv "$work/$g.var.vcf" -n "$nreads" \
          --illumina-read-length "$len" --illumina-prob-mismatch-scale 2.5 --seed 11 \
          -o "$reads" -oa "$truth" -q >/dev/null 2>&1
      time_tools "$work/$g" "$reads"
      echo "## $g, $nreads reads of $len bp (load average after: $(cut -d' ' -f1-3 /proc/loadavg))"
      echo
      echo "| tool | wall s | vs bwa mem | user s | max RSS MB | reads | correct % | MAPQ>=1 mapped % / wrong | MAPQ>=10 | MAPQ>=20 | MAPQ>=30 |"
      echo "|---|---|---|---|---|---|---|---|---|---|---|"
      bwa_wall=$(awk '$1 == "bwa-mem" {print $2}' "$work/times.txt")
      for tool in $tools; do
        read -r wall user rss < <(awk -v t="$tool" '$1 == t {print $2, $3, $4}' "$work/times.txt")
        awk -v tool="$tool" -v wall="$wall" -v user="$user" -v rss="$rss" -v bwa="$bwa_wall" -F'\t' '{
          printf "| %s | %.2f | %.2fx | %.2f | %.0f | %d | %.3f | %.2f / %d | %.2f / %d | %.2f / %d | %.2f / %d |\n",
            tool, wall, wall / bwa, user, rss / 1024, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }' \
          < <(awk -f "$eval_awk" "$truth" "$work/out.$tool.sam")
      done
      echo
      # Where seqfarm and bowtie2 disagree, and how much of it is the choice among ties.
      if [[ " $tools " == *" seqfarm "* && " $tools " == *" bowtie2 "* ]]; then
        python3 "$repo/bench/align_ties.py" "$truth" "$work/out.seqfarm.sam" "$work/out.bowtie2.sam" seqfarm bowtie2
        echo
      fi
      print_calibration "$truth" "$tools"
    done
  done

  run_tools=$tools command_of=command_for
  # Real runs: first reads of each pair, against the reference shipped beside them.
  echo "## Real reads (read 1 of each run, single-end): mapping rate and agreement with bwa mem"
  echo
  echo "Agreement: reads mapped by both tools whose primary alignments are on the same contig and strand with leftmost positions within 50 bp, as a % of reads bwa mem maps with MAPQ >= 20."
  echo
  echo "| run | reads | tool | mapped % | MAPQ>=20 % | agreement with bwa mem % | wall s |"
  echo "|---|---|---|---|---|---|---|"
  run_real() {
    local name=$1 reads=$2 ref=$3
    local prefix=$work/real.$name
    [ -s "$prefix.fa" ] || { if [[ $ref == *.gz ]]; then zcat "$ref"; else cat "$ref"; fi; } > "$prefix.fa"
    index_all "$prefix.fa" "$prefix"
    time_tools "$prefix" "$reads"
    local n
    n=$(awk '!/^@/ && int($2 / 256) % 2 == 0 && int($2 / 2048) % 2 == 0' "$work/out.bwa-mem.sam" | wc -l)
    for tool in $tools; do
      local wall
      wall=$(awk -v t="$tool" '$1 == t {print $2}' "$work/times.txt")
      awk -v tool="$tool" -v name="$name" -v n="$n" -v wall="$wall" '
        function bit(f, b) { return int(f / b) % 2 }
        # bwa mem drops a trailing /1 or /2 from read names; compare without it.
        { sub(/\/[12]$/, "", $1) }
        FNR == NR { if (/^@/ || bit($2, 256) || bit($2, 2048) || bit($2, 4)) next
                    if ($5 >= 20) { bc[$1] = $3; bp[$1] = $4; bs[$1] = bit($2, 16); b20++ } next }
        /^@/ || bit($2, 256) || bit($2, 2048) { next }
        { total++ }
        bit($2, 4) { next }
        { mapped++; if ($5 >= 20) q20++
          if (($1 in bc) && bc[$1] == $3 && bs[$1] == bit($2, 16) && $4 - bp[$1] <= 50 && bp[$1] - $4 <= 50) agree++ }
        END { printf "| %s | %d | %s | %.2f | %.2f | %.2f | %.2f |\n", name, total, tool,
                100 * mapped / total, 100 * q20 / total, 100 * agree / b20, wall }' \
        "$work/out.bwa-mem.sam" "$work/out.$tool.sam"
    done
  }
  run_real NA12878_chrM "$reads_dir/human_NA12878_chrM/NA12878_chrM_R1.fq.gz" "$reads_dir/human_NA12878_chrM/hg19_chrM_chrYtrunc.fa.gz"
  run_real CHM1_chr1 "$reads_dir/human_CHM1_chr1_100kb/CHM1_R1.fq.gz" "$reads_dir/human_CHM1_chr1_100kb/GRCh37_miniReference_chr1_chr2_100kb.fa.gz"
  run_real HIV1_miseq "$reads_dir/HIV1_iva_miseq/reads_1.fq.gz" "$reads_dir/HIV1_iva_miseq/reference.fasta"
  run_real SARSCoV2 "$reads_dir/SARSCoV2_SRR11728627/SRR11728627.fq.gz" "$reads_dir/SARSCoV2_SRR11728627/NC_045512.2.fasta"
fi

if [ "$mode" != single ]; then
  run_tools=$pe_tools command_of=pe_command_for
  for g in $pe_genomes; do
    fa=$work/$g.fa
    prepare_genome "$g"
    ! $uses_strobealign || strobealign_index "$fa"
    base=$work/$g.pe150.$npairs
    [ "$pe_seed" = 17 ] || base=$base.seed$pe_seed
    [ -s "$base.2.fq" ] || draw_pairs "$fa" "$work/$g.var.vcf" "$npairs" "$pe_seed" "$base"
    time_tools "$work/$g" "$fa" "$base.1.fq" "$base.2.fq"
    echo "## $g, $npairs pairs of 2x150 bp, fragment 400 +- 60, mason seed $pe_seed (load average after: $(cut -d' ' -f1-3 /proc/loadavg))"
    echo
    echo "Each mate scored as a read; concordant: pairs flagged proper (0x2)."
    echo
    echo "| tool | wall s | vs bwa mem | user s | max RSS MB | mates | correct % | MAPQ>=1 mapped % / wrong | MAPQ>=10 | MAPQ>=20 | MAPQ>=30 | concordant % |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    bwa_wall=$(awk '$1 == "bwa-mem" {print $2}' "$work/times.txt")
    for tool in $pe_tools; do
      read -r wall user rss < <(awk -v t="$tool" '$1 == t {print $2, $3, $4}' "$work/times.txt")
      awk -v tool="$tool" -v wall="$wall" -v user="$user" -v rss="$rss" -v bwa="$bwa_wall" -F'\t' '{
        printf "| %s | %.2f | %.2fx | %.2f | %.0f | %d | %.3f | %.2f / %d | %.2f / %d | %.2f / %d | %.2f / %d | %.2f |\n",
          tool, wall, wall / bwa, user, rss / 1024, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 }' \
        < <(awk -f "$eval_awk" "$base.truth.sam" "$work/out.$tool.sam")
    done
    echo
    # Where seqfarm and bwa mem disagree, and how much of it is the choice among ties.
    if [[ " $pe_tools " == *" seqfarm "* && " $pe_tools " == *" bwa-mem "* ]]; then
      python3 "$repo/bench/align_ties.py" "$base.truth.sam" "$work/out.seqfarm.sam" \
        "$work/out.bwa-mem.sam" seqfarm "bwa mem"
      echo
    fi
    # Why the tools that score as bowtie2 does misplaced what they misplaced: a tie, a
    # true place that scores lower, or a better pair the search missed (by the default
    # end-to-end scores: not for seqfarm run with SEQFARM_ARGS).
    for tool in seqfarm bowtie2 bowtie2-very-sensitive; do
      [[ " $pe_tools " == *" $tool "* ]] || continue
      [ "$tool" != seqfarm ] || [ -z "$sf_args" ] || continue
      python3 "$repo/bench/align_misses.py" "$fa" "$base.truth.sam" "$work/out.$tool.sam" "$tool"
    done
    echo
    print_calibration "$base.truth.sam" "$pe_tools"
  done

  # Real paired runs, against the reference shipped beside them. SARS-CoV-2's run is
  # one interleaved file whose mates are named SRR….N.1 and SRR….N.2; it is split here
  # into two files with the mates named SRR….N/1 and SRR….N/2 (the one read without
  # its mate left out).
  echo "## Real paired runs: concordant rate"
  echo
  echo "Concordant: pairs flagged proper (0x2); mapped: mates aligned."
  echo
  echo "| run | pairs | tool | concordant % | mapped % | MAPQ>=20 % | wall s |"
  echo "|---|---|---|---|---|---|---|"
  run_real_pairs() {
    local name=$1 r1=$2 r2=$3 ref=$4
    local prefix=$work/real.$name
    [ -s "$prefix.fa" ] || { if [[ $ref == *.gz ]]; then zcat "$ref"; else cat "$ref"; fi; } > "$prefix.fa"
    index_all "$prefix.fa" "$prefix"
    time_tools "$prefix" "$prefix.fa" "$r1" "$r2"
    for tool in $pe_tools; do
      local wall
      wall=$(awk -v t="$tool" '$1 == t {print $2}' "$work/times.txt")
      awk -v tool="$tool" -v name="$name" -v wall="$wall" '
        function bit(f, b) { return int(f / b) % 2 }
        /^@/ || bit($2, 256) || bit($2, 2048) { next }
        { mates++ }
        !bit($2, 4) { mapped++; if ($5 >= 20) q20++ }
        bit($2, 64) { pairs++; if (bit($2, 2)) proper++ }
        END { printf "| %s | %d | %s | %.2f | %.2f | %.2f | %.2f |\n", name, pairs, tool,
                100 * proper / pairs, 100 * mapped / mates, 100 * q20 / mates, wall }' \
        "$work/out.$tool.sam"
    done
  }
  sars=$reads_dir/SARSCoV2_SRR11728627/SRR11728627.fq.gz
  [ -s "$work/real.SARSCoV2.2.fq" ] || {
    zcat "$sars" | awk -v a="$work/real.SARSCoV2.1.fq" -v b="$work/real.SARSCoV2.2.fq" '
      { rec[(NR - 1) % 4] = $0 }
      NR % 4 == 0 {
        split(rec[0], f, " "); name = f[1]; base = name; sub(/\.[12]$/, "", base)
        if (name ~ /\.2$/ && base == held_base) {
          print held_base "/1\n" held > a; print base "/2\n" rec[1] "\n" rec[2] "\n" rec[3] > b
          held_base = ""
        } else if (name ~ /\.1$/) {
          held_base = base; held = rec[1] "\n" rec[2] "\n" rec[3]
        }
      }'
  }
  run_real_pairs NA12878_chrM "$reads_dir/human_NA12878_chrM/NA12878_chrM_R1.fq.gz" \
    "$reads_dir/human_NA12878_chrM/NA12878_chrM_R2.fq.gz" "$reads_dir/human_NA12878_chrM/hg19_chrM_chrYtrunc.fa.gz"
  run_real_pairs CHM1_chr1 "$reads_dir/human_CHM1_chr1_100kb/CHM1_R1.fq.gz" \
    "$reads_dir/human_CHM1_chr1_100kb/CHM1_R2.fq.gz" "$reads_dir/human_CHM1_chr1_100kb/GRCh37_miniReference_chr1_chr2_100kb.fa.gz"
  run_real_pairs HIV1_miseq "$reads_dir/HIV1_iva_miseq/reads_1.fq.gz" \
    "$reads_dir/HIV1_iva_miseq/reads_2.fq.gz" "$reads_dir/HIV1_iva_miseq/reference.fasta"
  run_real_pairs SARSCoV2 "$work/real.SARSCoV2.1.fq" "$work/real.SARSCoV2.2.fq" \
    "$reads_dir/SARSCoV2_SRR11728627/NC_045512.2.fasta"
fi
