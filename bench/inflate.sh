#!/usr/bin/env bash
# The inflate back ends on the BGZF blocks of BAM files: libdeflate, ISA-L (Debian's
# libisal-dev) and the adaptive choice between the two that seqfarm uses by default, one
# back end per process, alternating, ROUNDS runs each; prints MB/s of inflated output per
# run and the medians.
#
# usage: bench/inflate.sh [BAM...]   (default: $SEQFARM_BENCH_DATA/normal.bam)
# env:   ROUNDS (default 4), SEQFARM_BENCH_DATA (default /tmp/seqfarm-bench)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f /usr/include/isa-l.h ] || [ -d /usr/include/isa-l ] || { echo "bench/inflate.sh needs libisal-dev" >&2; exit 1; }
rounds=${ROUNDS:-4}
[ $# -gt 0 ] || set -- "${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}/normal.bam"
cargo build --release --quiet -p seqfarm-io --features isal --example inflate_backends
example=${CARGO_TARGET_DIR:-target}/release/examples/inflate_backends
echo "# $(date -u +%F) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
for bam in "$@"; do
  for _ in $(seq "$rounds"); do
    for backend in libdeflate isal adaptive; do
      # Columns: file, compressed MB, inflated MB, then seconds and MB/s per back end.
      "$example" --only "$backend" "$bam" | awk -v b="$backend" 'NR == 2 { print b, (b == "isal" ? $7 : b == "adaptive" ? $9 : $5) }'
    done
  done | awk -v bam="$(basename "$bam")" '
    { v[$1] = v[$1] " " $2; printf "%s\t%s\t%s MB/s\n", bam, $1, $2 }
    function median(s,   a, n, i, j, t) { n = split(s, a, " ")
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    END { for (b in v) printf "%s\t%s\tmedian %s MB/s\n", bam, b, median(v[b]) }'
done
