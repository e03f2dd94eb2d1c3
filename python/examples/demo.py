"""seqfarm from Python on the bundled example data: flagstat, count and an in-memory
alignment in process, then a paired-end alignment spread over a local Dask cluster of two
worker processes, checked byte for byte against the same job run in process.

    python python/examples/demo.py INDEX_PREFIX DATA_DIR OUT_DIR
"""

import filecmp
import os
import sys

from distributed import Client, LocalCluster

import seqfarm
import seqfarm.dask


def main(index, data, out):
    stats = seqfarm.flagstat(f"{data}/bam/chm1.bam")["QC-passed reads"]
    print(f"chm1.bam: {stats['total']} reads, {stats['mapped %']} % mapped")
    print(seqfarm.count([f"{data}/snp-pileup/normal_slice.bam"], window=20000).head(3))
    aligner = seqfarm.Aligner(index, very_sensitive=True)
    read = ("read1", "AGCTTTTCATTCTGACTGCAACGGGCAATATGTCTCTGTGTGGATTAAAAAAAGAG")
    for rec in aligner.align([read]):
        print(rec.name, rec.flag, rec.contig, rec.pos, rec.mapq, rec.cigar, rec.tags.get("AS"))

    pairs = (f"{data}/pe_sim_R1.fq.gz", f"{data}/pe_sim_R2.fq.gz")
    os.makedirs(f"{out}/local", exist_ok=True)
    os.makedirs(f"{out}/dask", exist_ok=True)
    # The same relative output name in both folders, so that the @PG command lines agree.
    os.chdir(f"{out}/local")
    aligner.align_files(*pairs, out="pairs.bam", X=1000)
    os.chdir(f"{out}/dask")
    # The dashboard on any free port (Dask warns when 8787 is taken). Leaving the block
    # closes the client, then the workers, then the scheduler.
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0")
    with cluster, Client(cluster) as client:
        summary = seqfarm.dask.align(client, index, *pairs, out="pairs.bam", quiet=True,
                                     very_sensitive=True, X=1000)
    print(summary.splitlines()[-1])
    same = filecmp.cmp(f"{out}/local/pairs.bam", f"{out}/dask/pairs.bam", shallow=False)
    print("Dask output identical to the in-process one:", same)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(*(os.path.abspath(a) for a in sys.argv[1:4])))
