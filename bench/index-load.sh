#!/usr/bin/env bash
# How long `seqfarm align` takes to read its index into memory: an earlier revision
# against the working tree on a large index and a handful of reads (4 single reads, 8
# pairs), so that the load is most of each run, at 1 and at 2 threads, by
# bench/align-revisions.sh with medians (a few runs stall while the kernel compacts
# memory for huge pages: the median and the range show them, a mean mixes them in).
#
#   bench/index-load.sh BASE_REV
#
# The index is of a random genome of GBP Gbp (8 contigs), written with its reads under
# $SEQFARM_BENCH_DATA/load when missing (the index takes about 2 minutes per Gbp to build
# on 2 cores; the FASTA is removed once indexed). Environment: GBP (default 1), THREADS
# (the -p values, default "1 2"), RUNS (hyperfine runs per command, default 25).
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: bench/index-load.sh BASE_REV}
gbp=${GBP:-1}
dir=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}/load
mkdir -p "$dir"
prefix=$dir/random-$gbp
if [ ! -s "$prefix.sfi" ]; then
  python3 - "$prefix.fa" "$gbp" "$dir" <<'PY'
import os, sys
fasta, gbp, folder = sys.argv[1], float(sys.argv[2]), sys.argv[3]
codes = bytes(b"ACGT"[i & 3] for i in range(256))
per_contig = int(gbp * 1e9) // 8
with open(fasta, "wb") as out:
    for contig in range(8):
        out.write(b">r%d\n" % contig)
        for start in range(0, per_contig, 6_000_000):
            bases = os.urandom(min(6_000_000, per_contig - start)).translate(codes)
            if contig == 0 and start == 0:
                head = bases[:20_000].decode()
            out.write(b"\n".join(bases[i:i + 60] for i in range(0, len(bases), 60)) + b"\n")
# 4 reads and 8 pairs (fragments of 400, mate 2 reverse-complemented) from contig r0.
flip = str.maketrans("ACGT", "TGCA")
quality = "I" * 150
with open(f"{folder}/reads.fq", "w") as reads:
    for i in range(4):
        reads.write(f"@q{i}\n{head[1000 * i:1000 * i + 150]}\n+\n{quality}\n")
with open(f"{folder}/pairs.1.fq", "w") as r1, open(f"{folder}/pairs.2.fq", "w") as r2:
    for i in range(8):
        start = 2000 * i
        mate2 = head[start + 250:start + 400].translate(flip)[::-1]
        r1.write(f"@p{i}/1\n{head[start:start + 150]}\n+\n{quality}\n")
        r2.write(f"@p{i}/2\n{mate2}\n+\n{quality}\n")
PY
  cargo build --release --quiet -p seqfarm-cli
  target/release/seqfarm index -t 2 -o "$prefix" "$prefix.fa"
  rm -f "$prefix.fa"
fi
for t in ${THREADS:-1 2}; do
  THREADS=$t STAT=median RUNS=${RUNS:-25} READS=$dir/reads.fq \
    PAIRS="$dir/pairs.1.fq $dir/pairs.2.fq" bench/align-revisions.sh "$base" "$prefix"
  echo
done
