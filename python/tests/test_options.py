from pathlib import Path

from seqfarm._options import option_argv


def test_keywords_become_bowtie2_options():
    argv = option_argv(
        {"X": 1000, "very_sensitive": True, "no_mixed": False, "3": 5,
         "score_min": "L,0,-0.2", "rdg": (5, 3), "un_conc_gz": Path("un.fq.gz"), "p": None}
    )
    assert argv == ["-X", "1000", "--very-sensitive", "-3", "5", "--score-min",
                    "L,0,-0.2", "--rdg", "5,3", "--un-conc-gz", "un.fq.gz"]
