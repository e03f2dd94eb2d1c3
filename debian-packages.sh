#!/usr/bin/env bash
# Installs those of the given Debian packages that are missing (with sudo when not root).
# Used by demo.sh (libisal-dev and libhts-dev, which the build links) and test.sh (the peer tools).
# With --authenticate first, installs nothing: asks for the sudo password now if any is
# missing, so that an install run later in the background does not stop to ask.
set -euo pipefail
authenticate=false
if [ "${1:-}" = --authenticate ]; then authenticate=true; shift; fi
missing=()
for p in "$@"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0
sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
if $authenticate; then
  [ -z "$sudo" ] || sudo -v
  exit 0
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
