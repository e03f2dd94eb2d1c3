#!/usr/bin/env bash
# The Python table functions (seqfarm.snp_pileup, seqfarm.count) against the command line
# plus pandas.read_csv of the file it writes, on the same inputs, in alternating rounds;
# checks that the data frames are equal and prints median wall seconds and the ratio.
#
# usage: bench/python-tables.sh [VCF BAM...]
#        (default: $SEQFARM_BENCH_DATA/sites.vcf.gz {normal,tumor}.bam: the chr20 pair of
#        make-bench-bams.sh and the 1.07 M sites of bench/make-snp-sites.sh)
# env:   REPS (3), WINDOW (10000: 6,303 windows on chr20), THREADS (all cores),
#        SEQFARM_BENCH_DATA (/tmp/seqfarm-bench)
# The package is the one in target/py-venv (built as test.sh builds it); the binary is
# built from the same tree with the same profile, so both run the same code.
set -euo pipefail
cd "$(dirname "$0")/.."
bench=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}
[ $# -gt 0 ] || set -- "$bench/sites.vcf.gz" "$bench/normal.bam" "$bench/tumor.bam"
[ -x target/py-venv/bin/python ] || { echo "build the package first (see test.sh)" >&2; exit 1; }
for f in "$@"; do [ -f "$f" ] || { echo "no input $f" >&2; exit 1; }; done
export CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_DEBUG=false
export CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS=true CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS=true
cargo build --release --quiet -p seqfarm-cli
echo "# $(date -u +%F) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# inputs: $*"
target/py-venv/bin/python bench/python_tables.py "$PWD/target/release/seqfarm" "$@"
