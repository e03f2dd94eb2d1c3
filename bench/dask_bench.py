"""The measurements of bench/dask.sh: each job run by the command line (2 threads) and by
seqfarm.dask on a fresh cluster of a ``dask scheduler`` process and ``dask worker``
processes of 2 threads in all (see :func:`cluster`), outputs
compared byte for byte, and the bytes that cross the client's connection per unit: the
bytes the client process's TCP connections write and read (the scheduler runs elsewhere),
Dask's own counts of the batched streams between the client and the scheduler, and the
pickled task arguments and results the client sends and receives."""

import gzip
import os
import pickle
import resource
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import distributed

import seqfarm.dask
from seqfarm import _native
from seqfarm.dask import _align, _cluster, _count, _depth, _flagstat, _snp_pileup

SEQFARM = os.environ["SEQFARM_BIN"]
NWORKERS, NTHREADS = os.environ.get("WORKERS", "1x2").split("x")


#: CPU seconds of each round of the row being measured: the command line's, and the
#: Dask job's (workers, scheduler, client); one median per row in ``CPU_ROWS``.
CPU = {"cli": [], "dask": []}
CPU_ROWS = []
#: Minor page faults of each round of the row being measured: the command line's and
#: the Dask job's worker processes'; one median per row in ``FAULT_ROWS``.
FAULTS = {"cli": [], "dask": []}
FAULT_ROWS = []
#: The sorted align rows' name (``bench/dask.sh`` projects a task's cost from two of them).
SORTED_ROW = "plain FASTQ, --sort"
#: Per job, the lowest and highest of its rounds' Dask / command line wall-time ratios.
RATIO_SPREAD = []


def _cpu(dask_scheduler=None):
    """User and system CPU seconds of the calling process (run on the workers and the
    scheduler too)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _faults():
    """Minor page faults of the calling process (run on the workers)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cli(*args):
    """Runs the command line as ``seqfarm ...``; returns (seconds, process)."""
    cpu = _children_cpu()
    faults = resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt
    started = time.perf_counter()
    done = subprocess.run(["seqfarm", *map(str, args)], executable=SEQFARM, capture_output=True, check=True)
    seconds = time.perf_counter() - started
    CPU["cli"].append(_children_cpu() - cpu)
    FAULTS["cli"].append(resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt - faults)
    return seconds, done


class Traffic:
    """Pickled sizes of what a job's client sends with its tasks (their arguments; a
    future passed on stands for its key) and of the results it receives, recorded on the
    client's ``submit``, ``map``, ``Future.result`` and ``gather``; and the parts jobs
    submit. ``unrecorded_map`` is the client's own ``map``."""

    def __init__(self):
        self.reset()
        traffic = self
        submit, result, gather = distributed.Client.submit, distributed.Future.result, distributed.Client.gather
        client_map = self.unrecorded_map = distributed.Client.map
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

        def recording_map(client, function, *iterables, **kwargs):
            iterables = [list(i) for i in iterables]
            traffic.sent += size(iterables)
            return client_map(client, function, *iterables, **kwargs)

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
        distributed.Client.map = recording_map
        distributed.Future.result = recording_result
        distributed.Client.gather = recording_gather
        for module in (_align, _count, _depth, _flagstat, _snp_pileup, seqfarm.dask._search):
            module.submit_in_order = counting

    def reset(self):
        self.sent = self.received = self.parts = self.comm = self.to_scheduler = self.from_scheduler = 0
        self.walk_seconds = 0.0
        self.tasks = 0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def cluster():
    """A fresh cluster as a deployment runs one: a ``dask scheduler`` process and
    ``dask worker`` processes (``$WORKERS``: 1x2, one process of 2 threads, as a node's
    one worker process of all its cores; 2x1, two single-threaded processes, each
    loading the index), over TCP on 127.0.0.1, the client in this process alone; yields
    the client once the workers are up."""
    dask = Path(sys.executable).with_name("dask")
    port = free_port()
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    processes = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"], **quiet)]
    try:
        processes.append(subprocess.Popen(
            [dask, "worker", f"tcp://127.0.0.1:{port}", "--nworkers", NWORKERS, "--nthreads", NTHREADS,
             "--host", "127.0.0.1", "--no-dashboard"], **quiet))
        with distributed.Client(f"tcp://127.0.0.1:{port}", timeout=60) as client:
            client.wait_for_workers(int(NWORKERS), timeout=60)
            yield client
    finally:
        # The workers first: a worker whose scheduler has gone waits to time out.
        for process in reversed(processes):
            process.terminate()
            process.wait()


class CommBytes:
    """Bytes the TCP connections of this process write and read (every message of the
    client, the scheduler being elsewhere), counted in Dask's TCP comm: what its
    writes return, and what its reads take from the socket (each message's 8-byte
    length included)."""

    total = 0

    @classmethod
    def install(cls):
        from distributed.comm import tcp

        write, read, read_bytes = tcp.TCP.write, tcp.TCP.read, tcp.read_bytes_rw

        async def counted_write(comm, *args, **kwargs):
            n = await write(comm, *args, **kwargs)
            cls.total += n
            return n

        async def counted_read(comm, *args, **kwargs):
            cls.total += 8
            return await read(comm, *args, **kwargs)

        async def counted_read_bytes(stream, n):
            cls.total += n
            return await read_bytes(stream, n)

        tcp.TCP.write, tcp.TCP.read, tcp.read_bytes_rw = counted_write, counted_read, counted_read_bytes


def _stream_to(client_id, dask_scheduler=None):
    """Runs on the scheduler: bytes its batched stream has sent to the client."""
    return dask_scheduler.client_comms[client_id].byte_count


def _tasks_run(dask_scheduler=None):
    """Runs on the scheduler: the tasks it has handed to workers so far."""
    return dask_scheduler.n_tasks


def stream_bytes(client):
    """Bytes of the batched streams between the client and the scheduler, as Dask
    counts them: (the client's to the scheduler, the scheduler's to the client)."""
    return client.scheduler_comm.byte_count, client.run_on_scheduler(_stream_to, client.id)


def timed_dask(traffic, job):
    """Runs ``job(client)`` on a fresh cluster; (seconds, result). Records in
    ``traffic`` the bytes through the client's connections and the Dask streams'
    counts during the job."""
    with cluster() as client:
        streams = stream_bytes(client)
        cpu = (sum(client.run(_cpu).values()), client.run_on_scheduler(_cpu), _cpu())
        faults = sum(client.run(_faults).values())
        comm = CommBytes.total
        tasks = client.run_on_scheduler(_tasks_run)
        started = time.perf_counter()
        result = job(client)
        seconds = time.perf_counter() - started
        traffic.tasks += client.run_on_scheduler(_tasks_run) - tasks
        after = (sum(client.run(_cpu).values()), client.run_on_scheduler(_cpu), _cpu())
        CPU["dask"].append([b - a for a, b in zip(cpu, after)])
        FAULTS["dask"].append(sum(client.run(_faults).values()) - faults)
        traffic.comm += CommBytes.total - comm
        after = stream_bytes(client)
        traffic.to_scheduler += after[0] - streams[0]
        traffic.from_scheduler += after[1] - streams[1]
        return seconds, result


def part_costs(plan, run_part, argv):
    """What a part of a region job costs wherever its tasks lie: the plan (one pass over
    the job's regions or VCF) cut into one part per task, and a part of the first task and
    of the last, each on one thread, reading from its own first region or line."""
    started = time.perf_counter()
    task_bytes, one_task_parts = plan(argv, 1 << 30)
    plan_seconds = time.perf_counter() - started
    part_seconds = []
    for first, last, start in (one_task_parts[0], one_task_parts[-1]):
        started = time.perf_counter()
        run_part(argv, task_bytes, first, last, start, 1)
        part_seconds.append(time.perf_counter() - started)
    return (f"the plan: {plan_seconds:.3f} s; a part of one task of {len(one_task_parts)}, on one thread: "
            f"the first {part_seconds[0]:.3f} s, the last {part_seconds[1]:.3f} s")


def stream_part_costs(tmp, sites, pileup, normal, tumor):
    """What the last part of a snp-pileup job costs when the VCF is one gzip stream
    rather than BGZF: entering it at the access points of the index its plan keeps
    beside it, and, that index removed, inflating it from its start."""
    stream = tmp / "sites-stream.vcf.gz"
    stream.write_bytes(gzip.compress(gzip.decompress(Path(sites).read_bytes()), compresslevel=6))
    argv = ["snp-pileup", "--", str(stream), str(pileup), str(normal), str(tumor)]
    started = time.perf_counter()
    task_bytes, parts = _native.snp_pileup_plan(argv, 1 << 30)
    plan_seconds = time.perf_counter() - started
    seconds = []
    for keep_index in (True, False):
        if not keep_index:
            Path(f"{stream}.sfzi").unlink()
        first, last, start = parts[-1]
        started = time.perf_counter()
        _native.snp_pileup_tasks(argv, task_bytes, first, last, start, 1)
        seconds.append(time.perf_counter() - started)
    stream.unlink()
    return (f"snp-pileup, the VCF as one gzip stream ({os.path.getsize(sites) / 1e6:.1f} MB as BGZF): the plan "
            f"{plan_seconds:.3f} s (one part per task, {len(parts)}, and the index beside the VCF made); a part of "
            f"the last task, on one thread: {seconds[0]:.3f} s entering the VCF at the index's access points, "
            f"{seconds[1]:.3f} s inflating it from its start (the index removed)")


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def rounds_of(rounds, run_cli, run_dask):
    """Runs the command line and the Dask job alternately ``rounds`` times; the median
    seconds of each and whether every Dask output was identical."""
    cli_times, dask_times, same = [], [], True
    for side in (*CPU.values(), *FAULTS.values()):
        side.clear()
    for _ in range(rounds):
        cli_times.append(run_cli())
        seconds, identical = run_dask()
        dask_times.append(seconds)
        same = same and identical
    CPU_ROWS.append((median(CPU["cli"]), *(median(side) for side in zip(*CPU["dask"]))))
    FAULT_ROWS.append((median(FAULTS["cli"]), median(FAULTS["dask"])))
    ratios = [b / a for a, b in zip(cli_times, dask_times)]
    RATIO_SPREAD.append((min(ratios), max(ratios)))
    return median(cli_times), median(dask_times), same


def main(index, r1, r2, normal, tumor, sites, window, rounds, jobs):
    traffic = Traffic()
    CommBytes.install()
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
    # Per align row, the bytes through the client's connections and the tasks run, in
    # its last round.
    client_bytes = {}

    def align_rows(name, m1, m2, fresh_index, sort=False, tasks_per_part=None):
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
            seconds, summary = timed_dask(traffic,
                lambda client: seqfarm.dask.align(client, index, m1, m2, out=out, quiet=True, sort=sort,
                                              tasks_per_part=tasks_per_part)
            )
            same = out.read_bytes() == expected["bam"] and summary == expected["summary"]
            same = same and (bai.read_bytes() if sort else None) == expected["bai"]
            out.unlink()
            bai.unlink(missing_ok=True)
            return seconds, same

        a, b, same = rounds_of(rounds, align_cli, align_dask)
        client_bytes[name.removesuffix(" (BAM and index compared)")] = (traffic.comm, traffic.tasks)
        rows.append((f"align, {name} ({pairs} pairs)", a, b, same,
                     f"{traffic.comm / pairs:.2f} B per pair through the client's connections; Dask's streams "
                     f"{traffic.to_scheduler / pairs:.2f} B to and {traffic.from_scheduler / pairs:.2f} B from the "
                     f"scheduler; pickled: {traffic.sent / pairs:.3f} B out + {traffic.received / pairs:.3f} B back "
                     f"({traffic.parts} parts); {traffic.tasks} tasks run by the scheduler; "
                     f"reads read by the client: {'yes' if client_read else 'none'}"))

    if "align" in jobs:
        align_rows("plain FASTQ", r1, r2, False)
        align_rows(SORTED_ROW + " (BAM and index compared)", r1, r2, False, sort=True)
        # Parts of 1024 pairs: as many parts per genomic cell as a large cluster's job.
        align_rows(SORTED_ROW + ", a part per 1024 pairs", r1, r2, False, sort=True, tasks_per_part=1)
        packed = []
        for m in (r1, r2):
            packed.append(tmp / (Path(m).name + ".gz"))
            with open(packed[-1], "wb") as f:
                subprocess.run(["gzip", "-c", m], stdout=f, check=True)
        align_rows("gzip FASTQ, index made by the job", *packed, True)
        align_rows("gzip FASTQ, index kept from an earlier job", *packed, False)
        argv = _align.align_argv(index, *map(str, packed), str(tmp / "a.bam"), {})
        passes = []
        for _ in range(3):
            Path(f"{packed[0]}.sfzi").unlink(missing_ok=True)
            started = time.perf_counter()
            (_, inflated, points), _ = _native.gzip_access(argv, str(packed[0]), _align.GZIP_SPAN)
            passes.append(inflated / (time.perf_counter() - started))
        inflate_rate = median(passes)
        index_size = (Path(f"{packed[0]}.sfzi").stat().st_size, len(points))
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
        seconds, text = timed_dask(traffic,
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
        seconds, _ = timed_dask(traffic,
            lambda client: seqfarm.dask.count(client, [normal, tumor], window=window, out=counts)
        )
        same = counts.read_bytes() == expected["count"]
        counts.unlink()
        return seconds, same

    if "count" in jobs:
        a, b, same = rounds_of(rounds, count_cli, count_dask)
        windows = expected["count"].count(b"\n")
        costs = part_costs(_native.count_plan, _native.count_tasks,
                           ["count", "--window", str(window), "-o", str(counts), str(normal), str(tumor)])
        rows.append((f"count ({windows} windows, 2 BAMs)", a, b, same,
                     f"{traffic.comm / windows:.2f} B per window through the client's connections; pickled: "
                     f"{traffic.sent / windows:.2f} B out + {traffic.received / windows:.1f} B back "
                     f"({traffic.parts} parts); {costs}"))

    depth_args = ["--window", 500, "-T", "1,10,20", "--per-base"]
    depth_options = {"window": 500, "thresholds": [1, 10, 20], "per_base": True}
    depth_files = [".regions.bed.gz", ".regions.bed.gz.csi", ".thresholds.bed.gz", ".thresholds.bed.gz.csi",
                   ".per-base.bed.gz", ".per-base.bed.gz.csi", ".mosdepth.summary.txt",
                   ".mosdepth.global.dist.txt", ".mosdepth.region.dist.txt"]

    def depth_outputs(prefix):
        """The job's files (removed), in order."""
        paths = [Path(f"{prefix}{suffix}") for suffix in depth_files]
        files = [p.read_bytes() for p in paths]
        for p in paths:
            p.unlink()
        return files

    def depth_cli():
        seconds, _ = cli("depth", "-t", 2, *depth_args, "-o", tmp / "depth", normal)
        expected["depth"] = depth_outputs(tmp / "depth")
        return seconds

    def depth_dask():
        traffic.reset()
        seconds, _ = timed_dask(traffic,
            lambda client: seqfarm.dask.depth(client, normal, tmp / "depth", **depth_options)
        )
        return seconds, depth_outputs(tmp / "depth") == expected["depth"]

    if "depth" in jobs:
        a, b, same = rounds_of(rounds, depth_cli, depth_dask)
        output_mb = sum(len(f) for f in expected["depth"]) / 1e6
        rows.append((f"depth (normal.bam, {' '.join(map(str, depth_args))}: {output_mb:.1f} MB of files)", a, b, same,
                     f"{traffic.comm / 1e3:.0f} kB through the client's connections in all, "
                     f"{traffic.comm / (output_mb * 1e6) * 100:.2f}% of the files; pickled: "
                     f"{traffic.sent / 1e3:.0f} kB out + {traffic.received / 1e3:.0f} kB back ({traffic.parts} parts)"))

    pileup = tmp / "pileup.csv"
    #: The command's options as FACETS runs it (BGZF output, pseudo-SNPs every 100 bases),
    #: less its minimum depth of 25 reads (`-r 25,0`), which the bench's BAMs of 1 M pairs
    #: rarely reach.
    facets = (["-g", "-q", 15, "-Q", 20, "-P", 100], {"g": True, "q": 15, "Q": 20, "P": 100})

    def snp_pileup_rounds(flags, options):
        written = Path(f"{pileup}.gz") if options.get("g") else pileup

        def snp_pileup_cli():
            seconds, _ = cli("snp-pileup", "-t", 2, *flags, sites, pileup, normal, tumor)
            expected["snp-pileup"] = written.read_bytes()
            written.unlink()
            return seconds

        def job(client):
            # The walks run one after the other: their compute time is the job's one
            # sequential stretch (besides the client's).
            with distributed.get_task_stream(client) as stream:
                result = seqfarm.dask.snp_pileup(client, sites, [normal, tumor], out=pileup, **options)
            traffic.walk_seconds += sum(s["stop"] - s["start"] for task in stream.data if "-walk" in task["key"]
                                        for s in task["startstops"] if s["action"] == "compute")
            return result

        def snp_pileup_dask():
            traffic.reset()
            seconds, _ = timed_dask(traffic, job)
            same = written.read_bytes() == expected["snp-pileup"]
            written.unlink()
            return seconds, same

        a, b, same = rounds_of(rounds, snp_pileup_cli, snp_pileup_dask)
        argv = ["snp-pileup", *map(str, flags), "--", str(sites), str(pileup), str(normal), str(tumor)]
        costs = part_costs(_native.snp_pileup_plan, _native.snp_pileup_tasks, argv)
        text = gzip.decompress(expected["snp-pileup"]) if options.get("g") else expected["snp-pileup"]
        rows_out = text.count(b"\n") - 1
        name = " ".join(map(str, flags)) or "default options"
        rows.append((f"snp-pileup, {name} ({rows_out} rows, 2 BAMs)", a, b, same,
                     f"{traffic.comm / rows_out:.3f} B per row through the client's connections; pickled: "
                     f"{traffic.sent / traffic.parts:.0f} B out per part + {traffic.received / rows_out:.3f} B "
                     f"back per row ({traffic.parts} parts); the walks, one after the other: "
                     f"{traffic.walk_seconds:.2f} s, {rows_out / max(traffic.walk_seconds, 1e-9) / 1e6:.1f} M rows/s; "
                     f"{costs}"))

    notes = []
    if "snp-pileup" in jobs:
        snp_pileup_rounds([], {})
        snp_pileup_rounds(*facets)
        notes.append(stream_part_costs(tmp, sites, pileup, normal, tumor))

    if "cram" in jobs:
        # normal.bam as CRAM 3.0 with a reference made from its reads and embedded (no
        # reference file needed): the region jobs plan it from its containers' sizes, and
        # each part decodes only the containers its own work reads (snp-pileup's parts and
        # walk: those their replays reach, read with tumor.bam).
        cram = tmp / "normal.cram"
        subprocess.run(["samtools", "view", "--no-PG", "-C", "--output-fmt-option", "embed_ref=2",
                        "-o", cram, normal], check=True)
        cram_mb = os.path.getsize(cram) / 1e6
        out = tmp / "cram-out"
        cram_jobs = [
            ("flagstat", ["flagstat", "-t", 2, cram], lambda c: seqfarm.dask.flagstat(c, cram, format="default"),
             lambda done: done.stdout, lambda result: result.encode()),
            ("count", ["count", "-t", 2, "--window", window, "-o", out, cram],
             lambda c: seqfarm.dask.count(c, [cram], window=window, out=out),
             lambda done: out.read_bytes(), lambda result: out.read_bytes()),
            ("depth", ["depth", "-t", 2, "--window", 500, "-o", out, cram],
             lambda c: seqfarm.dask.depth(c, cram, out, window=500),
             lambda done: Path(f"{out}.regions.bed.gz").read_bytes(),
             lambda result: Path(f"{out}.regions.bed.gz").read_bytes()),
            ("snp-pileup (with tumor.bam)", ["snp-pileup", "-t", 2, "--force", sites, out, cram, tumor],
             lambda c: seqfarm.dask.snp_pileup(c, sites, [cram, tumor], out=out, force=True),
             lambda done: out.read_bytes(), lambda result: out.read_bytes()),
        ]
        for name, argv, job, cli_output, dask_output in cram_jobs:
            def cram_cli():
                seconds, done = cli(*argv)
                expected["cram"] = cli_output(done)
                return seconds

            def cram_dask():
                traffic.reset()
                seconds, result = timed_dask(traffic, job)
                return seconds, dask_output(result) == expected["cram"]

            a, b, same = rounds_of(rounds, cram_cli, cram_dask)
            rows.append((f"{name} on CRAM (normal.bam as {cram_mb:.0f} MB of CRAM)", a, b, same,
                         f"pickled: {traffic.sent / 1e3:.1f} kB out + {traffic.received / 1e3:.1f} kB back "
                         f"({traffic.parts} parts)"))
        for leftover in tmp.glob("cram-out*"):
            leftover.unlink()
        cram.unlink()

    print(f"# medians of {rounds} alternating rounds; seqfarm.dask timed from submission to the "
          "output complete, on a fresh cluster each round (its workers load the index)")
    print(f"| job | seqfarm CLI, 2 threads (s) | seqfarm.dask, {NWORKERS} worker process(es) x {NTHREADS} "
          "thread(s) (s) | ratio | rounds' ratios | identical | network per unit |")
    print("|---|---|---|---|---|---|---|")
    for (name, a, b, same, net), (low, high) in zip(rows, RATIO_SPREAD):
        print(f"| {name} | {a:.2f} | {b:.2f} | {b / a:.2f} | {low:.2f}–{high:.2f} | {'yes' if same else 'NO'} | {net} |")
    print()
    print("# CPU seconds (user + system), medians of the rounds: the command line's process; the Dask "
          "job's worker processes, scheduler and client, read from each before and after the job; "
          "and the minor page faults of the command line's process and of the worker processes")
    print("| job | CLI | workers | workers / CLI | scheduler | client | page faults, CLI | page faults, workers |")
    print("|---|---|---|---|---|---|---|---|")
    for (name, *_), (cli_cpu, workers, scheduler, client_cpu), (cli_faults, worker_faults) in zip(rows, CPU_ROWS, FAULT_ROWS):
        print(f"| {name} | {cli_cpu:.2f} | {workers:.2f} | {workers / cli_cpu:.2f} | {scheduler:.2f} | {client_cpu:.2f} "
              f"| {cli_faults:.0f} | {worker_faults:.0f} |")
    for note in notes:
        print(f"# {note}")
    tmp.rmdir()
    if "align" in jobs:
        with cluster() as client:
            n = 3000
            started = time.perf_counter()
            distributed.wait(traffic.unrecorded_map(client, int, range(n), pure=False))
            task_seconds = (time.perf_counter() - started) / n
            spill_per_pair, merge_rate = sorted_merge_rate(client, index, r1, r2, pairs)
        # What one task more costs the client's connections: the sorted job of 1024-pair
        # parts against the one of default parts (the job's fixed bytes cancel out).
        (comm, tasks), (more_comm, more_tasks) = (
            client_bytes[name] for name in (SORTED_ROW, SORTED_ROW + ", a part per 1024 pairs")
        )
        project(pairs, per_core, inflate_rate, index_size, task_seconds,
                (os.path.getsize(r1) + os.path.getsize(r2)) / pairs, (more_comm - comm) / (more_tasks - tasks))
        project_sorted(per_core, spill_per_pair, merge_rate)


def sorted_merge_rate(client, index, r1, r2, pairs):
    """What a sorted job spills and how fast a merge task writes it: all the pairs
    aligned as one part (``sort=True``) into a spill file, then each placed range's
    records merged alone on one thread, as a merge task does. Returns (spill bytes per
    pair, merged spill bytes per second)."""
    with tempfile.TemporaryDirectory(prefix="seqfarm-dask-bench-") as tmp:
        argv = _align.align_argv(index, r1, r2, str(Path(tmp) / "merged.bam"), {"sort": True})
        [part] = _align.plan_by_ranges(client, argv, 1)
        spill, sizes, unplaced, _ = _native.align_part_sorted(argv, part, tmp, None)
        _native.align_write_spill_group(tmp, 0, [spill])
        cells = _native.align_cell_sizes(sizes)
        placed = sum(size for *_, size in cells)
        started = time.perf_counter()
        for range_id in sorted({r for r, *_ in cells}):
            _native.align_merge_cells(argv, tmp, 1, range_id, 0, _native.RANGE_CELLS, 1)
        seconds = time.perf_counter() - started
    return (placed + sum(s[2] for s in unplaced)) / pairs, placed / seconds


def project_sorted(per_core, spill_per_pair, merge_rate):
    """Prints the projection of the sorted job's merge (``sort=True``) for one 30x human
    genome: the merge tasks run once every part is aligned, a range (or a piece of one)
    each, so the merge takes the longer of its work spread over the cores and the
    largest task; the spill spread evenly over the genome."""
    genome_pairs, genome_bases = 400e6, 3.1e9
    spill = genome_pairs * spill_per_pair
    ranges = genome_bases / (8 << 20)
    cells = ranges * _native.RANGE_CELLS
    print()
    print(f"# sorted (sort=True), measured: {spill_per_pair:.0f} B of spill per pair, merged at "
          f"{merge_rate / 1e6:.0f} MB/s per core (each range of one part's spill merged on one thread)")
    print(f"# projection: {spill / 1e9:.0f} GB of spill over {genome_bases / 1e9:.1f} Gbp, evenly: "
          f"{ranges:.0f} ranges of 8 Mbp, {cells:.0f} cells of 1 Mbp; the merge takes the longer "
          "of its work over the cores and its largest task (a range, or a piece of whole cells of "
          "one holding more than two parts' worth, at 2 parts per core)")
    print("| nodes | aligning (s) | merge, a task per range (s) | merge, ranges cut into cells (s) |")
    print("|---|---|---|---|")
    for nodes in (10, 100, 1000):
        cores = 32 * nodes
        spread = spill / merge_rate / cores
        by_range = max(spread, spill / ranges / merge_rate)
        # A range holding more than two parts' worth is cut into pieces of about one
        # part's worth, of whole cells.
        parts = 2 * cores
        per_range = min(_native.RANGE_CELLS, int(parts / ranges)) if parts > 2 * ranges else 1
        by_cell = max(spread, spill / ranges / per_range / merge_rate)
        print(f"| {nodes} | {genome_pairs / (per_core * cores):.0f} | {by_range:.1f} | {by_cell:.1f} |")


def project(pairs, per_core, inflate_rate, index_size, task_seconds, fastq_per_pair, client_per_task):
    """Prints the projection of one 30x human genome's align job onto clusters of
    32-core nodes from this run's figures; the client's bytes from what one task more
    cost its connections (``client_per_task``: task arguments and Dask's messages
    alike), for the tasks of the projection."""
    genome_pairs = 400e6
    print()
    print(f"# measured: {per_core:.0f} pairs/s per core (the command line above); the Dask "
          f"scheduler's cost per task {task_seconds * 1e3:.2f} ms (3000 no-op tasks); one pass "
          f"indexing gzip FASTQ {inflate_rate / 1e6:.0f} MB/s inflated (median of 3, counting its records too), "
          f"its index {index_size[0]} B for {index_size[1]} access points (a worker process reads the table, "
          f"and the window of a point only where a part enters); {fastq_per_pair:.0f} B of "
          f"FASTQ per pair; {client_per_task:.0f} B through the client's connections per task run more (the "
          "sorted job of 1024-pair parts against the one of default parts, their last rounds)")
    print(f"# projection: a 30x human genome ({genome_pairs / 1e6:.0f} M pairs of 2x150) on N nodes of "
          "32 cores; each part is one scheduler task, and the parts done together are sized and "
          "written by a task per worker holding some: 3 tasks per part when every part comes back "
          "alone, 1 per part and 2 per node when a node's parts come back together; plus one per "
          f"{_align.RANGE_BYTES >> 20} MiB range counted (plain FASTQ, BGZF)")
    print("| nodes | parts per core | aligning (s) | scheduler, parts alone (s) | scheduler, a node's parts together (s) "
          "| first job on gzip: index pass per file (s) | limit | client's bytes per pair, parts alone "
          "| client's bytes per pair, a node's parts together |")
    print("|---|---|---|---|---|---|---|---|---|")
    index_pass = genome_pairs * fastq_per_pair / 2 / inflate_rate
    for nodes in (10, 100, 1000):
        for per in (4, 2):
            cores = 32 * nodes
            aligning = genome_pairs / (per_core * cores)
            ranges = genome_pairs * fastq_per_pair / _align.RANGE_BYTES
            tasks_alone = 3 * per * cores + ranges
            tasks_together = per * cores + 2 * nodes + ranges
            scheduler = tasks_alone * task_seconds
            together = tasks_together * task_seconds
            limit = max((aligning, "aligning"), (scheduler, "the scheduler"), (index_pass, "a first job's gzip index pass"))[1]
            print(f"| {nodes} | {per} | {aligning:.0f} | {scheduler:.0f} | {together:.0f} | {index_pass:.0f} | {limit} "
                  f"| {tasks_alone * client_per_task / genome_pairs:.2f} | {tasks_together * client_per_task / genome_pairs:.2f} |")


if __name__ == "__main__":
    index, r1, r2, normal, tumor, sites, window, rounds, jobs = sys.argv[1:10]
    main(index, r1, r2, normal, tumor, sites, int(window), int(rounds), jobs.split(","))
