#!/usr/bin/env bash
# Runs the coverage-guided fuzz targets (fuzz/fuzz_targets, one per input format; see
# crates/fuzzing for what each covers) for a set time each and prints a table: seconds
# run, inputs executed, coverage, corpus size and findings. Each target starts from its
# seeds (fuzz/seeds/TARGET) plus the corpus of earlier runs (fuzz/corpus/TARGET, kept).
# The build is optimised but keeps overflow checks and debug assertions (-a), so an
# integer overflow is a finding too. A finding (crash, panic, hang over 10 s, more than
# 2 GB resident or a single allocation over 1 GB) is copied to fuzz/regressions/TARGET/,
# which `cargo test` replays; fix it, then commit the file.
#
# usage: bench/fuzz.sh [TARGET...]          (default: every target)
# env:   FUZZ_SECONDS per target (default 1800), FUZZ_JOBS targets at a time (default 2),
#        FUZZ_SANITIZER (address, the default, or none: faster, finds panics, hangs and
#        memory blow-ups but not C-level memory errors)
#
# One target by hand (stable toolchain; RUSTC_BOOTSTRAP lets it take the sanitizer
# flags): cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run -O -a bam
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-1800}
jobs=${FUZZ_JOBS:-2}
sanitizer=${FUZZ_SANITIZER:-address}
if [ $# -eq 0 ]; then
  for f in fuzz/fuzz_targets/*.rs; do set -- "$@" "$(basename "$f" .rs)"; done
fi
export RUSTC_BOOTSTRAP=1
cargo fuzz --version >/dev/null 2>&1 || cargo install cargo-fuzz --locked --version 0.13.2
(cd fuzz && cargo fuzz build -O -a --sanitizer "$sanitizer")
logs=fuzz/logs
mkdir -p "$logs"

run_target() {
  local target=$1 corpus=fuzz/corpus/$1 artifacts=fuzz/artifacts/$1
  mkdir -p "$corpus" "$artifacts"
  cp -n fuzz/seeds/"$target"/* "$corpus"/
  local start=$SECONDS
  local scratch
  scratch=$(mktemp -d "$( [ -d /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/seqfarm-fuzz-$target.XXXXXX")
  export SEQFARM_FUZZ_SCRATCH=$scratch
  # libFuzzer exits non-zero on a finding; the table reports it.
  (cd fuzz && cargo fuzz run -O -a --sanitizer "$sanitizer" "$target" "corpus/$target" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -detect_leaks=0 -close_fd_mask=3 -print_final_stats=1 \
    -artifact_prefix="artifacts/$target/") >"$logs/$target.log" 2>&1 || true
  echo $((SECONDS - start)) >"$logs/$target.seconds"
  rm -rf "$scratch"
  for finding in "$artifacts"/*; do
    [ -f "$finding" ] || continue
    mkdir -p fuzz/regressions/"$target"
    cp "$finding" fuzz/regressions/"$target"/
  done
}
export -f run_target
export seconds sanitizer logs
printf '%s\n' "$@" | xargs -P "$jobs" -I{} bash -c 'run_target {}'

stat() { sed -n "s/^stat::$2: *//p" "$logs/$1.log" | tail -1; }
printf '%-8s %8s %12s %9s %7s %7s %s\n' target seconds execs execs/s cov corpus findings
for target in "$@"; do
  findings=$(find fuzz/artifacts/"$target" -type f 2>/dev/null | wc -l)
  cov=$(grep -o 'cov: [0-9]*' "$logs/$target.log" | tail -1 | cut -d' ' -f2)
  corpus=$(find fuzz/corpus/"$target" -type f | wc -l)
  printf '%-8s %8s %12s %9s %7s %7s %s\n' "$target" "$(cat "$logs/$target.seconds")" \
    "$(stat "$target" number_of_executed_units)" "$(stat "$target" average_exec_per_sec)" \
    "${cov:-?}" "$corpus" "$findings"
done
