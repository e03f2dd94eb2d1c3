# Sourced by the scripts that run a seqfarm build over the simulated paired sets of
# bench/align.sh (bench/align-first-mates.sh, bench/align-calibration.sh). Sets
# `repo`, `work` (the sets' folder), `threads` (THREADS, 2), `SEQFARM` (this checkout's
# release build unless given) and `tmp` (a scratch folder removed on exit), and defines
# `set_base GENOME SEED`, which prints the common path prefix of one set's files.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}/align
threads=${THREADS:-2}
if [ -z "${SEQFARM:-}" ]; then
  cargo build --release --quiet --manifest-path "$repo/Cargo.toml"
  SEQFARM=$repo/target/release/seqfarm
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

set_base() {
  if [ "$2" = 17 ]; then
    echo "$work/$1.pe150.100000"
  else
    echo "$work/$1.pe150.100000.seed$2"
  fi
}
