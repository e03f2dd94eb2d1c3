"""The Python table functions against the command line plus pandas.read_csv of its file.

    python_tables.py SEQFARM_BIN VCF BAM...      (env: WINDOW, REPS, THREADS)

Times, in alternating rounds in this one process, ``seqfarm.snp_pileup(VCF, BAMS)`` and
``seqfarm count --window WINDOW`` as ``seqfarm.count(BAMS, window=WINDOW)``, each beside
the same command run as a program writing its file, read back with ``pandas.read_csv``
(the column names and types given, as a user who knows the format would). Checks that
both give equal frames, then prints a markdown table of median wall seconds.
"""

import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time

import pandas as pd

import seqfarm


def cli_snp_pileup(binary, vcf, bams, threads, scratch):
    out = os.path.join(scratch, "pileup.csv")
    subprocess.run([binary, "snp-pileup", "-t", str(threads), "--force", vcf, out, *bams],
                   check=True, stderr=subprocess.DEVNULL)
    names = ["Chromosome", "Position", "Ref", "Alt"]
    for i in range(1, len(bams) + 1):
        names += [f"File{i}{x}" for x in "RAED"]
    dtype = {name: "int64" for name in names}
    dtype.update({"Chromosome": str, "Ref": str, "Alt": str})
    return pd.read_csv(out, dtype=dtype, keep_default_na=False, quoting=csv.QUOTE_NONE)


def cli_count(binary, bams, window, threads, scratch):
    out = os.path.join(scratch, "counts.tsv")
    subprocess.run([binary, "count", "-t", str(threads), "--window", str(window), "-o", out,
                    *bams], check=True)
    names = ["chrom", "start", "end"] + [os.path.basename(b) for b in bams]
    dtype = {name: "int64" for name in names}
    dtype["chrom"] = str
    return pd.read_csv(out, sep="\t", header=None, names=names, dtype=dtype,
                       keep_default_na=False, quoting=csv.QUOTE_NONE)


def timed(function):
    began = time.perf_counter()
    result = function()
    return time.perf_counter() - began, result


def main():
    binary, vcf, *bams = sys.argv[1:]
    window = int(os.environ.get("WINDOW", "10000"))
    reps = int(os.environ.get("REPS", "3"))
    threads = int(os.environ.get("THREADS", str(os.cpu_count())))
    jobs = {
        "snp-pileup": (
            lambda scratch: seqfarm.snp_pileup(vcf, bams, threads=threads),
            lambda scratch: cli_snp_pileup(binary, vcf, bams, threads, scratch),
        ),
        "count": (
            lambda scratch: seqfarm.count(bams, window=window, threads=threads),
            lambda scratch: cli_count(binary, bams, window, threads, scratch),
        ),
    }
    print(f"| job | rows | `seqfarm.<job>` (s) | CLI + `read_csv` (s) | ratio |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="seqfarm-bench-") as scratch:
        for name, (library, command) in jobs.items():
            library_times, command_times = [], []
            for _ in range(reps):
                seconds, ours = timed(lambda: library(scratch))
                library_times.append(seconds)
                seconds, theirs = timed(lambda: command(scratch))
                command_times.append(seconds)
                pd.testing.assert_frame_equal(ours, theirs)
            ours_s = statistics.median(library_times)
            theirs_s = statistics.median(command_times)
            print(f"| {name} | {len(ours):,} | {ours_s:.2f} | {theirs_s:.2f} "
                  f"| {theirs_s / ours_s:.2f}x |")


if __name__ == "__main__":
    main()
