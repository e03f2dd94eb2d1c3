#!/usr/bin/env bash
# Times seqfarm.dask jobs on a cluster of a `dask scheduler` process and `dask worker`
# processes of 2 threads in all (TCP on 127.0.0.1) against the command line at 2 threads
# (the median ratio and the lowest and highest of the rounds'), checks that the outputs
# are identical, and prints what crosses the client's connection
# per unit of work: the bytes the client process's connections write and read, Dask's
# counts of the batched streams between client and scheduler, and the pickled size of
# the tasks' arguments and of the results the client receives; for align, whether the
# client read any of the reads (gzip FASTQ is timed with its index made by the job and
# kept from an earlier one). With align, it projects one human genome's job onto
# clusters of 32-core nodes, and a sorted job's merge from what one part spills and how
# fast one thread merges it.
#
# usage: bench/dask.sh [INDEX_PREFIX R1 R2 NORMAL.bam TUMOR.bam SITES.vcf.gz]
#   defaults: /tmp/seqfarm-bench/align/chr20 (chr20.sfi), chr20.pe150.100000.{1,2}.fq,
#   /tmp/seqfarm-bench/{normal,tumor}.bam, /tmp/seqfarm-bench/sites-chr20.vcf.gz
# env:   PYTHON (default target/py-venv/bin/python, with seqfarm installed), SEQFARM_BIN
#        (the command line to compare with; default: this checkout's release build), WINDOW
#        (count windows, default 10000), ROUNDS (alternating rounds, medians; default 3),
#        JOBS (comma-separated, default align,flagstat,count,depth,snp-pileup; also cram:
#        flagstat, count, depth and snp-pileup (with TUMOR.bam) of NORMAL.bam written as
#        CRAM, which needs samtools), WORKERS
#        (worker processes x threads each: 1x2, the default, one process as a node runs
#        one with all its cores, or 2x1)
set -euo pipefail
cd "$(dirname "$0")/.."
bench=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}
python=${PYTHON:-target/py-venv/bin/python}
index=${1:-$bench/align/chr20}
r1=${2:-$bench/align/chr20.pe150.100000.1.fq}
r2=${3:-$bench/align/chr20.pe150.100000.2.fq}
normal=${4:-$bench/normal.bam}
tumor=${5:-$bench/tumor.bam}
sites=${6:-$bench/sites-chr20.vcf.gz}
if [ -n "${SEQFARM_BIN:-}" ]; then
  sf=$(realpath "$SEQFARM_BIN")
else
  cargo build --release --quiet -p seqfarm-cli
  sf=$PWD/target/release/seqfarm
fi
. bench/machine.sh
echo "# $(date -u +%F) $(nproc) cores, $(machine); load: $(cut -d' ' -f1-3 /proc/loadavg)"
SEQFARM_BIN=$sf exec "$python" bench/dask_bench.py \
  "$index" "$r1" "$r2" "$normal" "$tumor" "$sites" "${WINDOW:-10000}" "${ROUNDS:-3}" "${JOBS:-align,flagstat,count,depth,snp-pileup}"
