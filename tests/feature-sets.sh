#!/usr/bin/env bash
# Checks that the Python crate built alone, as `pip install .` builds it, resolves every
# dependency with the features the workspace's test build resolves. A crate whose
# features differ compiles again in ./test.sh, with every crate above it (about two
# minutes of the suite on 2 cores). The pins in crates/py/Cargo.toml keep the two
# sets equal; when a dependency changes, this names the crates whose features differ.
set -euo pipefail
cd "$(dirname "$0")/.."
export LC_ALL=C
features() { # CARGO-TREE-ARGS...: "package version|features" lines, sorted
  cargo tree --locked --prefix none --no-dedupe -f '{p}|{f}' "$@" \
    | grep -v '(\*)' | sed 's| (/[^)]*)||' | sort -u
}
alone=$(features -p seqfarm-python -e normal,build)
workspace=$(features --workspace -e normal,build,dev)
# Every crate the Python build compiles must be found in the workspace's list, and some
# with features, so that a change in cargo tree's output fails here rather than
# comparing nothing.
joined=$(join -t'|' <(echo "$alone") <(echo "$workspace") | wc -l)
if ! grep -q '|.' <<<"$alone" || [ "$joined" -ne "$(echo "$alone" | wc -l)" ]; then
  echo "feature-sets: cargo tree listed $(echo "$alone" | grep -c .) crates for the Python" \
    "crate, $joined of them in the workspace's list; features must be listed for some" >&2
  exit 1
fi
differ=$(join -t'|' <(echo "$alone") <(echo "$workspace") \
  | awk -F'|' '$2 != $3 { print "  " $1 ": alone [" $2 "], in the workspace [" $3 "]" }')
if [ -n "$differ" ]; then
  echo "feature-sets: the Python crate alone resolves other features than the workspace;" >&2
  echo "pin them in crates/py/Cargo.toml:" >&2
  echo "$differ" >&2
  exit 1
fi
echo "feature-sets: the Python crate alone and the workspace resolve the same features"
