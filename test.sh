#!/usr/bin/env bash
# Installs the Debian packages the tests compare against, then runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")"
packages=(samtools bedtools picard-tools parasail)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
cargo test --release --workspace --locked
