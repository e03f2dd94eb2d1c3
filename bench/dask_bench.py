"""The measurements of bench/dask.sh: each job run by the command line (2 threads) and by
seqfarm.dask on a fresh LocalCluster of 2 single-threaded worker processes (so that each
worker loads the index, as the command does), outputs compared byte for byte, and the
bytes that cross the client's connection per unit (pickled task arguments and the results
the client receives)."""

import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import distributed

import seqfarm.dask
from seqfarm import _native
from seqfarm.dask import _align, _cluster, _count, _flagstat, _snp_pileup

SEQFARM = os.environ["SEQFARM_BIN"]


def cli(*args):
    """Runs the command line as ``seqfarm ...``; returns (seconds, process)."""
    started = time.perf_counter()
    done = subprocess.run(["seqfarm", *map(str, args)], executable=SEQFARM, capture_output=True, check=True)
    return time.perf_counter() - started, done


class Traffic:
    """Pickled sizes of what a job's client sends with its tasks (their arguments; a
    future passed on stands for its key) and of the results it receives, recorded on the
    client's ``submit``, ``Future.result`` and ``gather``; and the parts jobs submit."""

    def __init__(self):
        self.reset()
        traffic = self
        submit, result, gather = distributed.Client.submit, distributed.Future.result, distributed.Client.gather
        submit_in_order = _cluster.submit_in_order

        def size(value):
            if isinstance(value, (list, tuple)):
                return sum(size(v) for v in value)
            return len(pickle.dumps(value.key if isinstance(value, distributed.Future) else value))

        def recording_submit(client, function, *args, **kwargs):
            traffic.sent += size(args)
            return submit(client, function, *args, **kwargs)

        def recording_result(future, *args, **kwargs):
            value = result(future, *args, **kwargs)
            traffic.received += size(value)
            return value

        def recording_gather(client, futures, *args, **kwargs):
            values = gather(client, futures, *args, **kwargs)
            traffic.received += size(values)
            return values

        def counting(client, function, argument_lists, name, show_progress=False):
            argument_lists = list(argument_lists)
            if name not in ("gzip-index", "count-range", "sorted-index"):  # planning, not parts
                traffic.parts += len(argument_lists)
            return submit_in_order(client, function, argument_lists, name, show_progress)

        distributed.Client.submit = recording_submit
        distributed.Future.result = recording_result
        distributed.Client.gather = recording_gather
        for module in (_align, _count, _flagstat, _snp_pileup, seqfarm.dask._search):
            module.submit_in_order = counting

    def reset(self):
        self.sent = self.received = self.parts = 0


def cluster():
    """A fresh LocalCluster of 2 single-threaded worker processes and its client."""
    c = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=":0", silence_logs=50,
    )
    return c, distributed.Client(c)


def timed_dask(job):
    """Runs ``job(client)`` on a fresh cluster; (seconds, result)."""
    c, client = cluster()
    try:
        client.wait_for_workers(2)
        started = time.perf_counter()
        result = job(client)
        return time.perf_counter() - started, result
    finally:
        client.close()
        c.close()


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def rounds_of(rounds, run_cli, run_dask):
    """Runs the command line and the Dask job alternately ``rounds`` times; the median
    seconds of each and whether every Dask output was identical."""
    cli_times, dask_times, same = [], [], True
    for _ in range(rounds):
        cli_times.append(run_cli())
        seconds, identical = run_dask()
        dask_times.append(seconds)
        same = same and identical
    return median(cli_times), median(dask_times), same


def main(index, r1, r2, normal, tumor, sites, window, rounds, jobs):
    traffic = Traffic()
    rows = []
    tmp = Path(tempfile.mkdtemp(prefix="seqfarm-dask-bench-"))

    out = tmp / "aligned.bam"
    expected = {}
    pairs = sum(1 for _ in open(r1, "rb")) // 4
    # The planner that reads the reads on the client must not run: the workers read them.
    client_read = []
    plan_parts = _align.plan_parts
    _align.plan_parts = lambda *a: client_read.append(1) or plan_parts(*a)

    bai = Path(f"{out}.bai")

    def align_rows(name, m1, m2, fresh_index, sort=False):
        def align_cli():
            seconds, done = cli("align", "-p", 2, *(["--sort"] if sort else []), "-x", index, "-1", m1, "-2", m2, "-o", out)
            expected["bam"], expected["summary"] = out.read_bytes(), done.stderr.decode()
            expected["bai"] = bai.read_bytes() if sort else None
            out.unlink()
            bai.unlink(missing_ok=True)
            return seconds

        def align_dask():
            if fresh_index:
                for m in (m1, m2):
                    Path(f"{m}.sfzi").unlink(missing_ok=True)
            traffic.reset()
            seconds, summary = timed_dask(
                lambda client: seqfarm.dask.align(client, index, m1, m2, out=out, quiet=True, sort=sort)
            )
            same = out.read_bytes() == expected["bam"] and summary == expected["summary"]
            same = same and (bai.read_bytes() if sort else None) == expected["bai"]
            out.unlink()
            bai.unlink(missing_ok=True)
            return seconds, same

        a, b, same = rounds_of(rounds, align_cli, align_dask)
        rows.append((f"align, {name} ({pairs} pairs)", a, b, same,
                     f"{traffic.sent / pairs:.3f} B out + {traffic.received / pairs:.3f} B back per pair "
                     f"({traffic.parts} parts); reads read by the client: {'yes' if client_read else 'none'}"))

    if "align" in jobs:
        align_rows("plain FASTQ", r1, r2, False)
        align_rows("plain FASTQ, --sort (BAM and index compared)", r1, r2, False, sort=True)
        packed = []
        for m in (r1, r2):
            packed.append(tmp / (Path(m).name + ".gz"))
            with open(packed[-1], "wb") as f:
                subprocess.run(["gzip", "-c", m], stdout=f, check=True)
        align_rows("gzip FASTQ, index made by the job", *packed, True)
        align_rows("gzip FASTQ, index kept from an earlier job", *packed, False)
        Path(f"{packed[0]}.sfzi").unlink(missing_ok=True)
        started = time.perf_counter()
        _, inflated, _ = _native.gzip_access(str(packed[0]), _align.GZIP_SPAN)
        inflate_rate = inflated / (time.perf_counter() - started)
        for m in packed:
            m.unlink()
            Path(f"{m}.sfzi").unlink(missing_ok=True)
        per_core = pairs / rows[0][1] / 2

    def flagstat_cli():
        seconds, done = cli("flagstat", "-t", 2, normal)
        expected["flagstat"] = done.stdout.decode()
        return seconds

    def flagstat_dask():
        traffic.reset()
        seconds, text = timed_dask(
            lambda client: seqfarm.dask.flagstat(client, normal, format="default")
        )
        return seconds, text == expected["flagstat"]

    bam_mb = os.path.getsize(normal) / 1e6
    a, b, same = rounds_of(rounds, flagstat_cli, flagstat_dask) if "flagstat" in jobs else (0, 0, False)
    "flagstat" in jobs and rows.append(("flagstat (normal.bam)", a, b, same,
                 f"{traffic.sent / traffic.parts:.0f} B out + {traffic.received / traffic.parts:.0f} B back "
                 f"per part ({traffic.parts} parts, {bam_mb / traffic.parts:.0f} MB of BAM each)"))

    counts = tmp / "counts.tsv"

    def count_cli():
        seconds, _ = cli("count", "-t", 2, "--window", window, "-o", counts, normal, tumor)
        expected["count"] = counts.read_bytes()
        counts.unlink()
        return seconds

    def count_dask():
        traffic.reset()
        seconds, _ = timed_dask(
            lambda client: seqfarm.dask.count(client, [normal, tumor], window=window, out=counts)
        )
        same = counts.read_bytes() == expected["count"]
        counts.unlink()
        return seconds, same

    if "count" in jobs:
        a, b, same = rounds_of(rounds, count_cli, count_dask)
        windows = expected["count"].count(b"\n")
        rows.append((f"count ({windows} windows, 2 BAMs)", a, b, same,
                     f"{traffic.sent / windows:.2f} B out + {traffic.received / windows:.1f} B back per window "
                     f"({traffic.parts} parts)"))

    pileup = tmp / "pileup.csv"

    def snp_pileup_cli():
        seconds, _ = cli("snp-pileup", "-t", 2, sites, pileup, normal, tumor)
        expected["snp-pileup"] = pileup.read_bytes()
        pileup.unlink()
        return seconds

    def snp_pileup_dask():
        traffic.reset()
        seconds, _ = timed_dask(
            lambda client: seqfarm.dask.snp_pileup(client, sites, [normal, tumor], out=pileup)
        )
        same = pileup.read_bytes() == expected["snp-pileup"]
        pileup.unlink()
        return seconds, same

    if "snp-pileup" in jobs:
        a, b, same = rounds_of(rounds, snp_pileup_cli, snp_pileup_dask)
        sites_in = expected["snp-pileup"].count(b"\n") - 1
        rows.append((f"snp-pileup ({sites_in} rows, 2 BAMs)", a, b, same,
                     f"{traffic.sent / traffic.parts:.0f} B out per part + {traffic.received / sites_in:.1f} B "
                     f"back per site ({traffic.parts} parts)"))

    print(f"# medians of {rounds} alternating rounds; seqfarm.dask timed from submission to the "
          "output complete, on a fresh cluster each round (its workers load the index)")
    print("| job | seqfarm CLI, 2 threads (s) | seqfarm.dask, 2 workers x 1 thread (s) | ratio | identical | network per unit |")
    print("|---|---|---|---|---|---|")
    for name, a, b, same, net in rows:
        print(f"| {name} | {a:.2f} | {b:.2f} | {b / a:.2f} | {'yes' if same else 'NO'} | {net} |")
    tmp.rmdir()
    if "align" in jobs:
        c, client = cluster()
        try:
            client.wait_for_workers(2)
            n = 3000
            started = time.perf_counter()
            client.gather(client.map(int, range(n), pure=False))
            task_seconds = (time.perf_counter() - started) / n
        finally:
            client.close()
            c.close()
        project(pairs, per_core, inflate_rate, task_seconds, (os.path.getsize(r1) + os.path.getsize(r2)) / pairs)


def project(pairs, per_core, inflate_rate, task_seconds, fastq_per_pair):
    """Prints the projection of one 30x human genome's align job onto clusters of
    32-core nodes from this run's figures."""
    genome_pairs = 400e6
    print()
    print(f"# measured: {per_core:.0f} pairs/s per core (the command line above); the Dask "
          f"scheduler's cost per task {task_seconds * 1e3:.2f} ms (3000 no-op tasks); one pass "
          f"indexing gzip FASTQ {inflate_rate / 1e6:.0f} MB/s inflated; {fastq_per_pair:.0f} B of "
          "FASTQ per pair")
    print(f"# projection: a 30x human genome ({genome_pairs / 1e6:.0f} M pairs of 2x150) on N nodes of "
          "32 cores; each part costs 3 scheduler tasks (align, size, write), plus one per "
          f"{_align.RANGE_BYTES >> 20} MiB range counted")
    print("| nodes | parts per core | aligning (s) | scheduler (s) | first job on gzip: index pass per file (s) | limit |")
    print("|---|---|---|---|---|---|")
    index_pass = genome_pairs * fastq_per_pair / 2 / inflate_rate
    for nodes in (10, 100, 1000):
        for per in (16, 2):
            cores = 32 * nodes
            aligning = genome_pairs / (per_core * cores)
            tasks = 3 * per * cores + genome_pairs * fastq_per_pair / _align.RANGE_BYTES
            scheduler = tasks * task_seconds
            limit = max((aligning, "aligning"), (scheduler, "the scheduler"), (index_pass, "a first job's gzip index pass"))[1]
            print(f"| {nodes} | {per} | {aligning:.0f} | {scheduler:.0f} | {index_pass:.0f} | {limit} |")


if __name__ == "__main__":
    index, r1, r2, normal, tumor, sites, window, rounds, jobs = sys.argv[1:10]
    main(index, r1, r2, normal, tumor, sites, int(window), int(rounds), jobs.split(","))
