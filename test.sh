#!/usr/bin/env bash
# Installs the Debian packages the build links and the tests compare against (bowtie2,
# samtools, BLAST+, headless Chromium that renders the pictures, ...) and MultiQC from
# PyPI in a virtual environment under target/ (the align tests check that it reads
# seqfarm's summary), the peers and MultiQC while the suite compiles; then runs the whole
# suite as built by default (ISA-L inflate); then the Python package: built with maturin
# into a virtual environment under target/ (with dask, pandas and pytest from PyPI) and
# tested against the binary. Then the IO crate's unit tests once more on its libdeflate
# back end alone; last, the API documentation, which must build without a broken link.
set -euo pipefail
cd "$(dirname "$0")"
# The suite checks what seqfarm does, not how fast it does it: its release build leaves
# out link-time optimisation, about half of a clean build's compile time, and the debug
# line tables, and it keeps the checks of a debug build: integer overflow panics (a
# release build would wrap silently and print a wrong number) and debug assertions,
# with the standard library's checks of unsafe calls' preconditions. (Benchmarks and
# the installed binary build without the checks, with LTO and line tables: `cargo build
# --release` rebuilds.)
export CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_DEBUG=false
export CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS=true CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS=true
# What the build links, and what makes the virtual environments, first.
./debian-packages.sh libisal-dev libhts-dev python3-venv

# The peer tools install from Debian and the two virtual environments fill from PyPI
# while cargo compiles; each job's log is shown if it fails.
mkdir -p target
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
in_background() { # LOG COMMAND...: runs COMMAND in the background, output to LOG
  local log=$1; shift
  ( "$@" >"$log" 2>&1 || { cat "$log" >&2; exit 1; } ) &
}
multiqc_version=1.35
venv=target/multiqc-venv
multiqc_venv() {
  if ! "$venv/bin/multiqc" --version 2>/dev/null | grep -qx "multiqc, version $multiqc_version"; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "multiqc==$multiqc_version"
  fi
}
pyvenv=target/py-venv
python_venv() {
  [ -x "$pyvenv/bin/python" ] || python3 -m venv "$pyvenv"
  "$pyvenv/bin/pip" install -q --disable-pip-version-check -r python/requirements-test.txt
}
peers=(samtools bedtools picard-tools parasail bowtie2 bwa ncbi-blast+ mosdepth tabix
  chromium-headless-shell)
./debian-packages.sh --authenticate "${peers[@]}"
in_background target/peers.log ./debian-packages.sh "${peers[@]}"; peers_job=$!
in_background target/multiqc-venv.log multiqc_venv; multiqc_job=$!
in_background target/py-venv.log python_venv; python_job=$!

# The whole workspace, the Python crate too (it has no Rust tests): its features then
# match those `pip install .` builds with, which reuses these compiled crates (checked
# first: a dependency whose features differ would compile twice).
tests/feature-sets.sh
cargo test --release --workspace --locked --no-run
wait "$peers_job"
wait "$multiqc_job"
export SEQFARM_MULTIQC=$PWD/$venv/bin/multiqc
cargo test --release --workspace --locked
# The GPU tests need an NVIDIA GPU: say whether they ran or were skipped. (`--workspace`
# keeps the run above's features, so nothing compiles again; `-p seqfarm` would rebuild.)
cargo test --release --workspace --locked --test e2e search_gpu -- --nocapture 2>&1 \
  | grep -E 'skipped|^test result'
# The tests built target/release/seqfarm, which the Python tests run.
wait "$python_job"
PATH=$PWD/$pyvenv/bin:$PATH "$pyvenv/bin/pip" install -q --disable-pip-version-check \
  --no-build-isolation --force-reinstall --no-deps .
SEQFARM_BIN=$PWD/target/release/seqfarm "$pyvenv/bin/pytest" -q
# Last, as it rebuilds the IO crate without ISA-L (the binary above keeps it). The Python
# crate, selected beside it, keeps every other crate's features as above, so only the IO
# crate compiles again.
cargo test --release --locked -p seqfarm-io -p seqfarm-python --no-default-features --tests
# The API documentation builds without a broken or private link.
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet
