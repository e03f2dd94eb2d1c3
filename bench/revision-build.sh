# Sourced by the scripts that time an earlier revision of seqfarm against the working
# tree (bench/align-revisions.sh, bench/index-revisions.sh). Defines
# `build_revisions BASE_REV [CARGO_ARGS ...]`, which extracts BASE_REV (git archive) under
# $SEQFARM_BENCH_DATA/revisions, builds it and the working tree (the package of the
# `seqfarm` binary plus CARGO_ARGS), and sets `rev` and `now` (their short names; `now` ends in "+changes"
# when the tree differs from HEAD), `tree` (BASE_REV's folder) and `old` and `new`
# (the two seqfarm binaries).
build_revisions() {
  local base=$1
  shift
  rev=$(git rev-parse --short "$base")
  tree=${SEQFARM_BENCH_DATA:-/tmp/seqfarm-bench}/revisions/$rev
  if [ ! -d "$tree" ]; then
    mkdir -p "$tree"
    git archive "$rev" | tar -x -C "$tree"
  fi
  # The binary's package: seqfarm-cli, or seqfarm before the library was split from it.
  local package=seqfarm-cli
  grep -q '^name = "seqfarm-cli"' "$tree/crates/cli/Cargo.toml" || package=seqfarm
  (cd "$tree" && CARGO_TARGET_DIR=$tree/target cargo build --release --quiet -p $package "$@")
  cargo build --release --quiet -p seqfarm-cli "$@"
  old=$tree/target/release/seqfarm
  new=$PWD/target/release/seqfarm
  now=$(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo "+changes")
}
