#!/usr/bin/env python3
"""Times two commands in alternation and prints one row of bench/align-revisions.sh's
table, for changes smaller than the drift of a shared machine between two blocks of runs.

    alternating_times.py RUNS KIND INDEX SAME OLD_ARGS... --vs NEW_ARGS...

One warm-up run of each, then RUNS rounds; each round runs both commands, the first of
them alternating between rounds, so that neither always runs on a machine the other has
just warmed or loaded. Prints: the median wall seconds of each with the range of its
runs, the speed-up as the median of the rounds' old / new ratios (each round's two runs
close together in time), and the median CPU seconds (user + sys) of each.
"""

import os
import statistics
import sys
import time


def run(argv):
    """Wall, user and system seconds of one run of argv (output discarded)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    start = time.perf_counter()
    pid = os.posix_spawnp(
        argv[0], argv, os.environ, file_actions=[
            (os.POSIX_SPAWN_DUP2, devnull, 1),
            (os.POSIX_SPAWN_DUP2, devnull, 2),
        ])
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    os.close(devnull)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(argv)}")
    return wall, usage.ru_utime, usage.ru_stime


def main():
    runs, kind, index, same = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    rest = sys.argv[5:]
    split = rest.index("--vs")
    commands = [rest[:split], rest[split + 1:]]
    for argv in commands:
        run(argv)
    times = [[], []]
    for r in range(runs):
        order = (0, 1) if r % 2 == 0 else (1, 0)
        for side in order:
            times[side].append(run(commands[side]))
    walls = [[t[0] for t in side] for side in times]
    ratio = statistics.median(o / n for o, n in zip(*walls))

    def wall(w):
        return f"{statistics.median(w):.3f} ({min(w):.3f}-{max(w):.3f})"

    def cpu(side):
        return (f"{statistics.median(t[1] for t in side):.2f} + "
                f"{statistics.median(t[2] for t in side):.2f}")

    print(f"| {kind} | {index} | {same} | {wall(walls[0])} | {wall(walls[1])} | "
          f"{ratio:.2f}x | {cpu(times[0])} | {cpu(times[1])} |")


if __name__ == "__main__":
    main()
