#!/usr/bin/env bash
# Installs those of the given Debian packages that are missing (with sudo when not root).
# Used by demo.sh (libisal-dev and libhts-dev, which the build links) and test.sh (the peer tools).
set -euo pipefail
missing=()
for p in "$@"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0
sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
