#!/usr/bin/env bash
# Installs the Debian packages the build links and the tests compare against (bowtie2,
# samtools, BLAST+, headless Chromium that renders the pictures, ...) and MultiQC from
# PyPI in a virtual environment under target/ (the align tests check that it reads
# seqfarm's summary), then runs the whole suite as built by default (ISA-L
# inflate); then the Python package: built with maturin into a virtual environment under
# target/ (with dask, pandas and pytest from PyPI) and tested against the binary. Last,
# the IO crate's unit tests once more on its libdeflate back end alone.
set -euo pipefail
cd "$(dirname "$0")"
# The suite checks what seqfarm does, not how fast it does it: its release build leaves
# out link-time optimisation, about half of a clean build's compile time. (Benchmarks and
# the installed binary build with it: `cargo build --release` rebuilds.)
export CARGO_PROFILE_RELEASE_LTO=false
./debian-packages.sh libisal-dev samtools bedtools picard-tools parasail bowtie2 ncbi-blast+ python3-venv mosdepth libhts-dev tabix chromium-headless-shell
multiqc_version=1.35
venv=target/multiqc-venv
if ! "$venv/bin/multiqc" --version 2>/dev/null | grep -qx "multiqc, version $multiqc_version"; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "multiqc==$multiqc_version"
fi
export SEQFARM_MULTIQC=$PWD/$venv/bin/multiqc
cargo test --release --workspace --exclude seqfarm-python --locked
# The tests built target/release/seqfarm, which the Python tests run.
pyvenv=target/py-venv
[ -x "$pyvenv/bin/python" ] || python3 -m venv "$pyvenv"
"$pyvenv/bin/pip" install -q --disable-pip-version-check -r python/requirements-test.txt
PATH=$PWD/$pyvenv/bin:$PATH "$pyvenv/bin/pip" install -q --disable-pip-version-check \
  --no-build-isolation --force-reinstall --no-deps .
SEQFARM_BIN=$PWD/target/release/seqfarm "$pyvenv/bin/pytest" -q
# Last, as it rebuilds the IO crate without ISA-L (the binary above keeps it).
cargo test --release --locked -p seqfarm-io --lib
