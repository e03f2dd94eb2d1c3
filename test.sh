#!/usr/bin/env bash
# Installs the Debian packages the build links and the tests compare against, then runs
# the whole suite: once as built by default (ISA-L inflate), and the IO crate's tests once
# more on its libdeflate back end.
set -euo pipefail
cd "$(dirname "$0")"
./debian-packages.sh libisal-dev samtools bedtools picard-tools parasail
cargo test --release --workspace --locked
cargo test --release --locked -p seqfarm-io
