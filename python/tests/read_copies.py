"""Copies of the bundled read files for tests that write beside their reads (a gzip
file's index is kept beside it)."""

import gzip
import shutil
import subprocess

DATA_PAIRS = ("pe_sim_R1.fq.gz", "pe_sim_R2.fq.gz")


def plain_copies(tmp_path, data, names, times=1):
    """Uncompressed copies of gzipped read files (each repeated ``times`` times)."""
    paths = []
    for name in names:
        path = tmp_path / name.removesuffix(".gz")
        with gzip.open(data / name, "rb") as src:
            text = src.read()
        path.write_bytes(text * times)
        paths.append(path)
    return paths


def compressed_copies(tmp_path, data, names, how):
    """Copies of gzipped read files, as they are (``gzip``: one member each) or
    recompressed into BGZF (``bgzf``)."""
    paths = []
    for name in names:
        path = tmp_path / name
        if how == "gzip":
            shutil.copy(data / name, path)
        else:
            with gzip.open(data / name, "rb") as src:
                text = src.read()
            path.write_bytes(subprocess.run(["bgzip", "-c"], input=text, capture_output=True, check=True).stdout)
        paths.append(path)
    return paths
