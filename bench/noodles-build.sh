#!/usr/bin/env bash
# Builds seqfarm with CRAM decoded by noodles-cram instead of htslib (the `htslib` feature
# off, ISA-L kept), copies the binary to DIR/seqfarm-noodles and prints that path: the
# CRAM benchmarks time both decoders in the same run.
#
# usage: bench/noodles-build.sh DIR
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: bench/noodles-build.sh DIR}
cargo build --release --quiet -p seqfarm-cli --no-default-features --features isal
cp target/release/seqfarm "$dir/seqfarm-noodles"
echo "$dir/seqfarm-noodles"
