#!/usr/bin/env bash
# Where `seqfarm flagstat -t 1` spends its time on a BAM: a perf profile, the symbols
# taking at least 1 % of the samples (inflate, CRC32, walking records, page handling).
#
# usage: bench/flagstat-profile.sh [BAM]   (default: $SEQFARM_BENCH_DATA/normal.bam)
# env:   BUILD_FLAGS (extra cargo build flags, e.g. --no-default-features: libdeflate only)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v perf >/dev/null || { echo "bench/flagstat-profile.sh needs perf (linux-perf)" >&2; exit 1; }
bam=${1:-${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}/normal.bam}
# shellcheck disable=SC2086
cargo build --release --quiet ${BUILD_FLAGS:-}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "# $(date -u +%F) $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg); $(basename "$bam")"
perf record -q -o "$tmp/perf.data" "${CARGO_TARGET_DIR:-target}/release/seqfarm" flagstat -t 1 "$bam" >/dev/null 2>&1
perf report -q -i "$tmp/perf.data" --stdio --sort symbol --percent-limit 1 2>/dev/null | sed '/^$/d'
