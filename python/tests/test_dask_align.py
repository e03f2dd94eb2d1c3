"""seqfarm.dask.align on a LocalCluster of worker processes: the output file is the
command line's, byte for byte, and so is the summary."""

import gzip
import os
import shutil

import pytest

import seqfarm
import seqfarm.dask

from client_received import record_received
from read_copies import DATA_PAIRS, compressed_copies, plain_copies
from worker_kill import a_worker_killed_when_busy


def cli_align(cli, tmp_path, index, reads, out_name, options=()):
    """Runs ``seqfarm align`` into ``tmp_path / out_name`` and returns (output bytes,
    summary text), the file removed (the job under test writes the same path: the path
    is part of ``@PG CL:``)."""
    out = tmp_path / out_name
    mates = ["-1", reads[0], "-2", reads[1]] if len(reads) == 2 else ["-U", reads[0]]
    flag = "-o" if out_name.endswith(".bam") else "-S"
    done = cli("align", *options, "-x", index, *mates, flag, out, "-p", "2")
    expected = out.read_bytes()
    out.unlink()
    return expected, done.stderr.decode()


@pytest.mark.parametrize("out_name,how", [("pairs.bam", "gzip"), ("pairs.sam", "gzip"), ("pairs.bam", "bgzf")])
def test_compressed_pairs_are_read_by_the_workers(dask_client, cli, data, sim_index, tmp_path, out_name, how, monkeypatch):
    from seqfarm.dask import _align

    # The ranges the workers are given to count, job by job.
    counting = []
    submit = _align.submit_in_order
    monkeypatch.setattr(
        _align,
        "submit_in_order",
        lambda client, fn, args, name, *a: (name == "count-range" and counting.append(len(args))) or submit(client, fn, args, name, *a),
    )
    reads = compressed_copies(tmp_path, data, DATA_PAIRS, how)
    expected, summary = cli_align(cli, tmp_path, sim_index, reads, out_name)
    out = tmp_path / out_name
    got = seqfarm.dask.align(
        dask_client, sim_index, reads[0], reads[1], out=out, tasks_per_part=1, quiet=True
    )
    assert out.read_bytes() == expected
    assert got == summary
    # Each file's access points are kept beside it, and reused by the next job.
    indexes = [r.with_name(r.name + ".sfzi") for r in reads]
    made = [i.stat().st_mtime_ns for i in indexes]
    seqfarm.dask.align(dask_client, sim_index, reads[0], reads[1], out=out, quiet=True)
    assert out.read_bytes() == expected
    assert [i.stat().st_mtime_ns for i in indexes] == made
    # A gzip member's records were counted by the pass that indexed it, and kept with
    # the index: neither job counts them again. BGZF is indexed without inflating it,
    # so its ranges are counted by every job.
    assert counting == ([0, 0] if how == "gzip" else [2, 2])


def test_a_changed_gzip_file_is_indexed_again(dask_client, cli, data, sim_index, tmp_path):
    [reads] = compressed_copies(tmp_path, data, ["align_reads_100.fq.gz"], "gzip")
    seqfarm.dask.align(dask_client, sim_index, reads, out=tmp_path / "first.sam", quiet=True)
    with gzip.open(data / DATA_PAIRS[0], "rb") as src:
        reads.write_bytes(gzip.compress(src.read()))
    expected, summary = cli_align(cli, tmp_path, sim_index, [reads], "second.sam")
    got = seqfarm.dask.align(dask_client, sim_index, reads, out=tmp_path / "second.sam", tasks_per_part=1, quiet=True)
    assert (tmp_path / "second.sam").read_bytes() == expected
    assert got == summary


def test_several_sources_with_skip_and_upto(dask_client, cli, data, sim_index, tmp_path):
    [plain] = plain_copies(tmp_path, data, ["align_reads_100.fq.gz"], times=30)
    [packed] = compressed_copies(tmp_path, data, [DATA_PAIRS[0]], "gzip")
    reads = f"{plain},{packed}"
    out = tmp_path / "mixed.bam"
    done = cli("align", "-s", "29000", "-u", "2700", "-x", sim_index, "-U", reads, "-o", out, "-p", "2")
    expected = out.read_bytes()
    out.unlink()
    got = seqfarm.dask.align(dask_client, sim_index, reads, out=out, tasks_per_part=1, quiet=True, s=29000, u=2700)
    assert out.read_bytes() == expected
    assert got == done.stderr.decode()


def test_upto_stops_the_counting_past_its_last_pair(dask_client, cli, data, sim_index, tmp_path, monkeypatch):
    from seqfarm.dask import _align

    reads = plain_copies(tmp_path, data, DATA_PAIRS, times=4)
    expected, summary = cli_align(cli, tmp_path, sim_index, reads, "upto.bam", ["-s", "100", "-u", "1500"])
    range_bytes = 32 << 10
    monkeypatch.setattr(_align, "RANGE_BYTES", range_bytes)
    counted = []
    plan = _align._native.align_parts_by_range

    def recording(argv, access, ranges_counted, *more):
        counted.extend(ranges_counted)
        return plan(argv, access, ranges_counted, *more)

    monkeypatch.setattr(_align._native, "align_parts_by_range", recording)
    out = tmp_path / "upto.bam"
    got = seqfarm.dask.align(dask_client, sim_index, *reads, out=out, parts_per_worker=2, quiet=True, s=100, u=1500)
    assert out.read_bytes() == expected
    assert got == summary
    # The first ranges of each file, not the rest.
    ranges = sum(-(-path.stat().st_size // range_bytes) for path in reads)
    assert 2 <= len(counted) < ranges / 2
    assert {r[0] for r, _ in counted} == set(reads)


def test_plain_pairs_with_options_are_read_by_range(dask_client, cli, data, sim_index, tmp_path):
    reads = plain_copies(tmp_path, data, DATA_PAIRS, times=2)
    options = ["-X", "600", "--no-mixed", "--rg-id", "grp", "--rg", "SM:x"]
    expected, summary = cli_align(cli, tmp_path, sim_index, reads, "opts.bam", options)
    out = tmp_path / "opts.bam"
    got = seqfarm.dask.align(
        dask_client,
        sim_index,
        reads[0],
        reads[1],
        out=out,
        parts_per_worker=3,
        quiet=True,
        X=600,
        no_mixed=True,
        rg_id="grp",
        rg="SM:x",
    )
    assert out.read_bytes() == expected
    assert got == summary


def test_the_workers_load_the_index_as_the_command_does(cli, data, sim_index, dask_client, local_cluster, tmp_path):
    def _maps_index(index):
        """Runs on a worker (sent by value): whether its process has the index file
        memory-mapped."""
        import os

        return os.path.realpath(f"{index}.sfi") in open("/proc/self/maps").read()

    reads = plain_copies(tmp_path, data, DATA_PAIRS)
    # Read into memory by default, as the command reads it.
    expected, _ = cli_align(cli, tmp_path, sim_index, reads, "copied.bam")
    seqfarm.dask.align(dask_client, sim_index, *reads, out=tmp_path / "copied.bam", quiet=True)
    assert (tmp_path / "copied.bam").read_bytes() == expected
    assert not any(dask_client.run(_maps_index, str(sim_index)).values())
    # Memory-mapped with mm=True (--mm), its pages shared by the worker processes.
    expected, _ = cli_align(cli, tmp_path, sim_index, reads, "mapped.bam", ["--mm"])
    with local_cluster() as client:
        seqfarm.dask.align(client, sim_index, *reads, out=tmp_path / "mapped.bam", quiet=True, mm=True)
        assert all(client.run(_maps_index, str(sim_index)).values())
    assert (tmp_path / "mapped.bam").read_bytes() == expected


def test_unpaired_reads(dask_client, cli, data, sim_index, tmp_path):
    reads = plain_copies(tmp_path, data, ["align_reads_100.fq.gz"], times=3)
    expected, summary = cli_align(cli, tmp_path, sim_index, reads, "single.bam")
    out = tmp_path / "single.bam"
    got = seqfarm.dask.align(dask_client, sim_index, reads[0], out=out, tasks_per_part=1, quiet=True)
    assert out.read_bytes() == expected
    assert got == summary


def test_a_second_run_replaces_the_output(dask_client, cli, data, sim_index, tmp_path):
    reads = plain_copies(tmp_path, data, ["align_reads_100.fq.gz", *DATA_PAIRS])
    expected, _ = cli_align(cli, tmp_path, sim_index, reads[:1], "again.bam")
    out = tmp_path / "again.bam"
    seqfarm.dask.align(dask_client, sim_index, reads[1], reads[2], out=out, quiet=True)
    first = out.read_bytes()
    seqfarm.dask.align(dask_client, sim_index, reads[0], out=out, tasks_per_part=1, quiet=True)
    assert out.read_bytes() == expected != first
    seqfarm.dask.align(dask_client, sim_index, reads[0], out=out, quiet=True, force=True)
    assert out.read_bytes() == expected
    # Written through a symbolic link, as the command writes it: the link stays.
    link = tmp_path / "link.bam"
    link.symlink_to("again.bam")
    out.write_bytes(b"old")
    seqfarm.dask.align(dask_client, sim_index, reads[0], out=link, quiet=True)
    assert link.is_symlink() and out.read_bytes()[:2] == b"\x1f\x8b"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_an_input_is_never_the_output(dask_client, data, sim_index, tmp_path):
    [reads] = plain_copies(tmp_path, data, ["align_reads_100.fq.gz"])
    before = reads.read_bytes()
    for force in (False, True):
        with pytest.raises(seqfarm.InputError, match="this output is the input"):
            seqfarm.dask.align(dask_client, sim_index, reads, out=reads, quiet=True, force=force)
    assert reads.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [reads.name]


def test_bad_record_raises_the_cli_message(dask_client, cli, sim_index, tmp_path):
    reads = tmp_path / "bad.fq"
    reads.write_text("@r1\nACGT\n+\nIIII\n@r2\nACGT\nIIII\n")
    message = cli("align", "-x", sim_index, "-U", reads, "-S", tmp_path / "x.sam", check=False)
    message = message.stderr.decode().strip()
    with pytest.raises(seqfarm.FormatError) as caught:
        seqfarm.dask.align(dask_client, sim_index, reads, out=tmp_path / "bad.sam", quiet=True)
    assert message == f"seqfarm: error: {caught.value}"
    assert not (tmp_path / "bad.sam").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("sort", [False, True])
def test_a_killed_worker_has_its_parts_recomputed(cli, data, sim_index, tmp_path, local_cluster, sort):
    reads = plain_copies(tmp_path, data, DATA_PAIRS, times=4)
    expected, summary = cli_align(cli, tmp_path, sim_index, reads, "killed.bam", ["--sort"] if sort else [])
    bai = tmp_path / "killed.bam.bai"
    expected_index = bai.read_bytes() if sort else None
    bai.unlink(missing_ok=True)
    out = tmp_path / "killed.bam"
    with local_cluster(silence_logs=50) as client, a_worker_killed_when_busy(client):
        got = seqfarm.dask.align(
            client, sim_index, reads[0], reads[1], out=out, tasks_per_part=1, quiet=True, sort=sort
        )
    assert out.read_bytes() == expected
    assert got == summary
    assert (bai.read_bytes() if sort else None) == expected_index
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_part_plan_covers_the_input_at_task_boundaries(dask_client, data, sim_index, tmp_path):
    from seqfarm.dask._align import align_argv, plan_by_ranges, plan_parts

    reads = plain_copies(tmp_path, data, DATA_PAIRS)
    argv = align_argv(sim_index, reads[0], reads[1], tmp_path / "x.bam", {})
    # Found by the workers: each part starts at a task boundary, at a record of each file.
    parts = plan_by_ranges(dask_client, argv, 3, tasks_per_part=1)
    assert [p[1] for p in parts] == [0, 1024, 2048, 3072]
    assert sum(p[4] for p in parts) == 4000
    for part in parts:
        assert part[2] == part[3] == part[1]
        for mate, (path, offset, point, skip, data_) in enumerate(part[5]):
            assert path == reads[mate] and point is None and data_ is None
            with open(path, "rb") as f:
                f.seek(offset)
                assert f.read(1) == b"@" and skip < 1024
    # As many parts as asked for, of tasks as equal in number as can be (4 tasks).
    assert [p[1] for p in plan_by_ranges(dask_client, argv, 3)] == [0, 1024, 2048]
    assert [p[1] for p in plan_by_ranges(dask_client, argv, 2)] == [0, 2048]
    assert [p[1] for p in plan_by_ranges(dask_client, argv, 9)] == [0, 1024, 2048, 3072]
    # Read by the client (reads it cannot have the workers read at an offset).
    parts = plan_parts(argv, 3)
    assert [p[1] for p in parts] == [0, 1024, 2048]
    assert sum(p[4] for p in parts) == 4000
    shutil.rmtree(tmp_path, ignore_errors=True)


def test_a_part_runs_on_one_thread_of_its_worker():
    import distributed

    from seqfarm.dask._cluster import task_threads

    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
    ) as cluster, distributed.Client(cluster) as client:
        # The worker runs two parts at once: each on one of its threads.
        assert client.submit(task_threads, pure=False).result() == 1
    assert task_threads() is None


def _write_fails_once(aligned, path, offset, marks):
    """A part's write that, the first time for each offset, writes half of the part and
    fails (as a worker whose filesystem errs mid-write); later tries write it whole."""
    import os

    from seqfarm import _native

    mark = os.path.join(marks, str(offset))
    if not os.path.exists(mark):
        open(mark, "w").close()
        _native.write_at(path, offset, aligned[0][: len(aligned[0]) // 2])
        raise OSError(f"simulated failure writing at {offset}")
    return _native.write_at(path, offset, aligned[0])


def test_parts_are_written_by_the_workers_and_a_failed_write_is_retried(
    cli, data, sim_index, tmp_path, monkeypatch
):
    import functools

    import distributed

    from seqfarm.dask import _cluster

    reads = plain_copies(tmp_path, data, DATA_PAIRS, times=2)
    expected, summary = cli_align(cli, tmp_path, sim_index, reads, "retried.bam")
    marks = tmp_path / "marks"
    marks.mkdir()
    # Workers in this process run the patched write: each part's first try fails.
    monkeypatch.setattr(_cluster, "_write_part", functools.partial(_write_fails_once, marks=str(marks)))
    # The client never receives a part's bytes: only its size and counts.
    received = record_received(monkeypatch)
    out = tmp_path / "retried.bam"
    with distributed.Client(
        processes=False, n_workers=2, threads_per_worker=1, dashboard_address=":0"
    ) as client:
        got = seqfarm.dask.align(
            client, sim_index, reads[0], reads[1], out=out, tasks_per_part=1, quiet=True
        )
    assert out.read_bytes() == expected
    assert got == summary
    assert len(list(marks.iterdir())) > 1

    def numbers(value):
        """How many numbers ``value`` holds (failing on bytes)."""
        if isinstance(value, (list, tuple)):
            return sum(numbers(v) for v in value)
        assert not isinstance(value, (bytes, bytearray, memoryview))
        return 1

    # Records counted by range, where the parts start, and the parts' sizes and counts:
    # well under one 8-byte number per pair.
    assert 0 < numbers(received) * 8 < 8000
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_an_output_named_from_the_clients_directory_is_written_by_the_workers(
    dask_client, cli, data, sim_index, tmp_path, monkeypatch
):
    # The workers run in another directory: they must be given the output's full path.
    reads = compressed_copies(tmp_path, data, DATA_PAIRS, "gzip")
    monkeypatch.chdir(tmp_path)
    done = cli("align", "-x", sim_index, "-1", reads[0], "-2", reads[1], "-o", "relative.bam", "-p", "2")
    out = tmp_path / "relative.bam"
    expected = out.read_bytes()
    out.unlink()
    got = seqfarm.dask.align(
        dask_client, sim_index, reads[0], reads[1], out="relative.bam", tasks_per_part=1, quiet=True
    )
    assert out.read_bytes() == expected
    assert got == done.stderr.decode()


def test_gzip_reads_without_an_index_travel_with_their_parts(cli, data, sim_index, tmp_path, monkeypatch):
    import distributed

    from seqfarm import _native

    reads = compressed_copies(tmp_path, data, DATA_PAIRS, "gzip")
    expected, summary = cli_align(cli, tmp_path, sim_index, reads, "unindexed.bam")

    def nowhere_to_keep_it(argv, path, span):
        raise seqfarm.Error(f"cannot index {path}: cannot write its index")

    monkeypatch.setattr(_native, "gzip_access", nowhere_to_keep_it)
    # The workers (in this process) are given each part's reads.
    carried = []
    align_part = _native.align_part
    monkeypatch.setattr(
        _native, "align_part", lambda argv, part, *a: carried.append(all(f[4] for f in part[5])) or align_part(argv, part, *a)
    )
    out = tmp_path / "unindexed.bam"
    with distributed.Client(processes=False, n_workers=2, threads_per_worker=1, dashboard_address=":0") as client:
        got = seqfarm.dask.align(client, sim_index, reads[0], reads[1], out=out, tasks_per_part=1, quiet=True)
    assert out.read_bytes() == expected
    assert got == summary
    assert carried and all(carried)


def test_mates_missing_past_upto_are_not_an_error(dask_client, cli, data, sim_index, tmp_path):
    reads = plain_copies(tmp_path, data, DATA_PAIRS)
    text = reads[1].read_bytes()
    reads[1].write_bytes(text[: text.index(b"\n@", len(text) // 2) + 1])
    expected, summary = cli_align(cli, tmp_path, sim_index, reads, "upto.bam", ["-u", "1500"])
    out = tmp_path / "upto.bam"
    got = seqfarm.dask.align(dask_client, sim_index, reads[0], reads[1], out=out, u=1500, tasks_per_part=1, quiet=True)
    assert out.read_bytes() == expected
    assert got == summary
    with pytest.raises(seqfarm.Error, match="mate"):
        seqfarm.dask.align(dask_client, sim_index, reads[0], reads[1], out=out, quiet=True)


def _sorted_as_the_cli(dask_client, cli, index, tmp_path, reads):
    """Checks that a sorted job writes the BAM, index and summary of ``seqfarm align --sort``."""
    out = tmp_path / "sorted.bam"
    done = cli("align", "--sort", "-x", index, "-1", reads[0], "-2", reads[1], "-o", out, "-p", "2")
    expected, expected_index = out.read_bytes(), (tmp_path / "sorted.bam.bai").read_bytes()
    out.unlink()
    (tmp_path / "sorted.bam.bai").unlink()
    got = seqfarm.dask.align(dask_client, index, reads[0], reads[1], out=out, sort=True, tasks_per_part=1, quiet=True)
    assert out.read_bytes() == expected
    assert (tmp_path / "sorted.bam.bai").read_bytes() == expected_index
    assert got == done.stderr.decode()


@pytest.mark.parametrize("how", ["plain", "gzip"])
def test_sorted_output_is_the_cli_sorted_bam_and_index(dask_client, cli, data, sim_index, tmp_path, how):
    if how == "plain":
        reads = plain_copies(tmp_path, data, DATA_PAIRS, times=3)
    else:
        reads = compressed_copies(tmp_path, data, DATA_PAIRS, how)
    _sorted_as_the_cli(dask_client, cli, sim_index, tmp_path, reads)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_sorted_parts_send_the_client_cell_sizes_summed_over_parts(dask_client, cli, data, sim_index, tmp_path, monkeypatch):
    # Each part's cells stay in the table after its spill; the client receives the
    # cell sizes of a task per SIZES_SUMMED parts, and each merge is sent its range and
    # cells, not a segment of every part.
    from distributed import get_task_stream

    from seqfarm.dask import _align

    monkeypatch.setattr(_align, "SIZES_SUMMED", 3)
    # What the spill directory holds when it is removed.
    spilled = []
    rmtree = _align.shutil.rmtree
    monkeypatch.setattr(_align.shutil, "rmtree", lambda path, **kw: spilled.extend(os.listdir(path)) or rmtree(path, **kw))
    reads = plain_copies(tmp_path, data, DATA_PAIRS, times=3)
    with get_task_stream(dask_client) as tasks:
        _sorted_as_the_cli(dask_client, cli, sim_index, tmp_path, reads)
    def count(name):
        return sum(1 for t in tasks.data if t["key"].startswith(f"seqfarm-{name}-"))

    parts = count("align-sort")
    assert parts > 3 and count("sort-summary") == -(-parts // 3)
    # One spill file per worker process, not per part, and a file of places per group.
    workers = len(dask_client.scheduler_info()["workers"])
    assert 1 <= len([f for f in spilled if f.startswith("worker-")]) <= workers < parts
    assert len([f for f in spilled if f.startswith("group-")]) == -(-parts // 3)


def _with_unaligned_pairs(tmp_path, data, every):
    """The bundled pairs with ``every`` pairs of random bases (which align nowhere) after
    each: unplaced reads in every part of a job."""
    import random

    rng = random.Random(7)
    paths = []
    mates = [gzip.open(data / name, "rt").read().splitlines() for name in DATA_PAIRS]
    noise = [["".join(rng.choice("ACGT") for _ in range(100)) for _ in range(len(mates[0]) // 4 * every)] for _ in mates]
    for m, (lines, random_reads) in enumerate(zip(mates, noise)):
        out = []
        for k in range(0, len(lines), 4):
            out += lines[k : k + 4]
            for j in range(every):
                n = k // 4 * every + j
                out += [f"@noise.{n}/{m + 1}", random_reads[n], "+", "I" * 100]
        path = tmp_path / f"noisy_{m + 1}.fq"
        path.write_text("\n".join(out) + "\n")
        paths.append(path)
    return paths


def test_unplaced_reads_are_written_in_pieces(dask_client, cli, data, sim_index, tmp_path, monkeypatch):
    # 24,000 unplaced reads: pieces of one run of UNPLACED_RUN records each, from the
    # segments of many parts, a piece starting inside a part's segment.
    from seqfarm import _native
    from seqfarm.dask import _align

    monkeypatch.setattr(_align, "UNPLACED_PIECE", _native.UNPLACED_RUN)
    reads = _with_unaligned_pairs(tmp_path, data, every=3)
    pieces = []
    unplaced_pieces = _align._unplaced_pieces
    monkeypatch.setattr(_align, "_unplaced_pieces", lambda s: pieces.extend(unplaced_pieces(s)) or pieces)
    _sorted_as_the_cli(dask_client, cli, sim_index, tmp_path, reads)
    assert len(pieces) >= 2 and all(skip_take[1] <= _native.UNPLACED_RUN for _, skip_take in pieces)
    assert any(skip_take[0] > 0 for _, skip_take in pieces)


def test_a_range_is_cut_into_pieces_of_whole_cells():
    from seqfarm.dask import _align

    # Every part's bytes of each cell added up: 60 bytes, whole under twice the piece's
    # bytes, else cut after the cells reaching them, runs without records left out.
    cells = [15, 0, 40, 0, 0, 0, 0, 5]
    assert _align._range_pieces(cells, 30) == [(0, 8)]
    assert _align._range_pieces(cells, 15) == [(0, 1), (1, 3), (3, 8)]
    assert _align._range_pieces([20, 0, 0, 0, 0, 0, 0, 0], 5) == [(0, 1)]


def test_a_range_of_many_reads_is_merged_in_pieces_of_cells(dask_client, cli, tmp_path, monkeypatch):
    # A genome of 2.6 Mbp: its one range holds reads in three 1 Mbp cells. With merges of
    # a byte each, the range is merged by a task per cell, and the BAM and its index are
    # still the command's (which starts a block at each cell).
    import random

    from seqfarm.dask import _align

    rng = random.Random(11)
    genome = "".join(rng.choices("ACGT", k=2_600_000))
    fasta = tmp_path / "cells.fa"
    fasta.write_text(">cells\n" + "\n".join(genome[i : i + 80] for i in range(0, len(genome), 80)) + "\n")
    index = tmp_path / "cells"
    cli("index", "-t", "2", "-o", index, fasta)
    complement = str.maketrans("ACGT", "TGCA")
    mates = ([], [])
    for n in range(1500):
        start = rng.randrange(len(genome) - 300)
        fragment = genome[start : start + 300]
        mates[0].extend([f"@p{n}/1", fragment[:100], "+", "I" * 100])
        mates[1].extend([f"@p{n}/2", fragment[-100:].translate(complement)[::-1], "+", "I" * 100])
    reads = [tmp_path / "cells_1.fq", tmp_path / "cells_2.fq"]
    for path, lines in zip(reads, mates):
        path.write_text("\n".join(lines) + "\n")
    pieces = []
    range_pieces = _align._range_pieces
    monkeypatch.setattr(_align, "_merge_piece_bytes", lambda placed, parts: 1)
    monkeypatch.setattr(_align, "_range_pieces", lambda s, b: pieces.append(range_pieces(s, b)) or pieces[-1])
    _sorted_as_the_cli(dask_client, cli, index, tmp_path, reads)
    assert [len(p) for p in pieces] == [3]


def test_what_parts_cannot_do_is_refused_before_any_part_runs(dask_client, data, sim_index, tmp_path):
    reads = plain_copies(tmp_path, data, DATA_PAIRS)
    out = tmp_path / "refused.bam"
    for options in ({"sort": True, "markdup": True}, {"met_file": str(tmp_path / "met.txt")}):
        with pytest.raises(seqfarm.OptionError, match="not available when aligning in parts"):
            seqfarm.dask.align(dask_client, sim_index, reads[0], reads[1], out=out, quiet=True, **options)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in reads)


def test_parts_done_together_are_sized_and_written_by_one_task_per_worker(dask_client, data, sim_index, tmp_path):
    from distributed import get_task_stream, wait

    from seqfarm.dask import _align, _cluster

    reads = plain_copies(tmp_path, data, DATA_PAIRS)
    out = tmp_path / "joined.bam"
    argv = _align.align_argv(sim_index, reads[0], reads[1], out, {})
    texts = [f"part {i}: " * (i + 1) for i in range(12)]
    futures = _cluster.submit_in_order(dask_client, str.encode, [(t,) for t in texts], "bytes")
    wait(futures)
    holders = dask_client.who_has(futures)
    # Done parts are sized by one task per worker holding some, each given its own.
    sizings = list(_cluster._on_holders(dask_client, _cluster._part_sizes, futures, "size", lambda group: (True,)))
    assert len(sizings) == len({held[0] for held in holders.values()})
    for group, sizing in sizings:
        assert {holders[f.key][0] for f in group} == {holders[group[0].key][0]}
        assert sizing.result() == [(len(f.result()), None) for f in group]
    assert sorted(f.key for group, _ in sizings for f in group) == sorted(f.key for f in futures)
    with get_task_stream(dask_client) as tasks, _cluster.whole_output(argv) as output:
        _, offsets = _cluster.write_parts(dask_client, futures, output, b"head ", b" tail")
    assert out.read_bytes() == b"head " + "".join(texts).encode() + b" tail"
    assert offsets == [5 + sum(len(t) for t in texts[:i]) for i in range(12)]
    names = [t["key"].split("-")[1] for t in tasks.data if t["key"].startswith("seqfarm-")]
    # Fewer tasks than one size and one write per part (how many batches the parts
    # come back in is up to the client's loop).
    assert names.count("size") + names.count("write") < 2 * 12


def _unplaced_record(name, seq):
    """An unplaced BAM record (FLAG 4, no position) as the spill holds it."""
    import struct

    codes = {"A": 1, "C": 2, "G": 4, "T": 8, "N": 15}
    packed = bytes((codes[a] << 4) | codes[b] for a, b in zip(seq[::2], (seq + "N")[1::2]))
    body = struct.pack("<iiBBHHHiiii", -1, -1, len(name) + 1, 0, 4680, 0, 4, len(seq), -1, -1, 0)
    body += name.encode() + b"\0" + packed + b"\x1e" * len(seq)
    return struct.pack("<i", len(body)) + body


def test_a_piece_of_unplaced_reads_longer_than_its_segments_is_an_error(data, sim_index, tmp_path):
    from seqfarm import _native
    from seqfarm.dask import _align

    reads = plain_copies(tmp_path, data, DATA_PAIRS)
    argv = _align.align_argv(sim_index, reads[0], reads[1], tmp_path / "sorted.bam", {"sort": True})
    spill = tmp_path / "spill"
    spill.write_bytes(b"".join(_unplaced_record(f"r{i}", "ACGTA") for i in range(3)))
    segments = [(str(spill), 0, spill.stat().st_size)]
    blocks, _ = _native.align_merge_range(argv, segments, None, (1, 2))
    assert blocks
    for skip, records in ((0, 4), (2, 2)):
        with pytest.raises(seqfarm.Error, match="records short of the piece's"):
            _native.align_merge_range(argv, segments, None, (skip, records))
