# Shared by the bench scripts (sourced): alternating hyperfine rounds and their summary.

# alternate_rounds ROUNDS JSON_PREFIX [HYPERFINE_OPTION...] -- NAME COMMAND [NAME COMMAND...]
# Runs every command once per round, in turn, so a load change on a shared machine hits
# all of them alike; round r's timings go to JSON_PREFIX.r.json.
alternate_rounds() {
  local rounds=$1 prefix=$2
  shift 2
  local options=()
  while [ "$1" != "--" ]; do options+=("$1"); shift; done
  shift
  local args=()
  while [ $# -gt 0 ]; do args+=(-n "$1" "$2"); shift 2; done
  for r in $(seq "$rounds"); do
    hyperfine --style none --runs 1 "${options[@]}" --export-json "$prefix.$r.json" \
      "${args[@]}" >/dev/null 2>&1
  done
}

# summarize_rounds ROUNDS JSON_PREFIX PEER
# Prints per command the median wall and CPU (user + system) seconds and PEER's time over
# the command's (above 1: faster than PEER).
summarize_rounds() {
  python3 - "$@" <<'PY'
import json, statistics, sys
rounds, prefix, peer = int(sys.argv[1]), sys.argv[2], sys.argv[3]
wall, cpu = {}, {}
for r in range(1, rounds + 1):
    for res in json.load(open(f"{prefix}.{r}.json"))["results"]:
        wall.setdefault(res["command"], []).extend(res["times"])
        cpu.setdefault(res["command"], []).append(res["user"] + res["system"])
w = {k: statistics.median(v) for k, v in wall.items()}
c = {k: statistics.median(v) for k, v in cpu.items()}
print(f"{'tool':<22} {'wall_s':>8} {'x_' + peer:>12} {'cpu_s':>8} {'cpu_x_' + peer:>14}")
for tool in wall:
    print(f"{tool:<22} {w[tool]:8.2f} {w[peer] / w[tool]:12.2f} {c[tool]:8.2f} {c[peer] / c[tool]:14.2f}")
PY
}

# beside_a_busy_core DIR
# Writes DIR/beside-a-busy-core, a wrapper that runs its arguments as a command while a
# busy loop holds core 0 (the loop ends with the command), and prints its path.
beside_a_busy_core() {
  cat > "$1/beside-a-busy-core" <<'SH'
#!/bin/sh
taskset -c 0 sh -c 'while :; do :; done' &
burner=$!
"$@"
status=$?
kill "$burner"
exit $status
SH
  chmod +x "$1/beside-a-busy-core"
  echo "$1/beside-a-busy-core"
}

# round_medians ROUNDS JSON_PREFIX
# Prints, as one JSON object, each command's median wall seconds over the rounds of
# alternate_rounds (keyed by the command's name).
round_medians() {
  python3 - "$@" <<'PY'
import json, statistics, sys
rounds, prefix = int(sys.argv[1]), sys.argv[2]
times = {}
for r in range(1, rounds + 1):
    for res in json.load(open(f"{prefix}.{r}.json"))["results"]:
        times.setdefault(res["command"], []).extend(res["times"])
print(json.dumps({k: statistics.median(v) for k, v in times.items()}))
PY
}
