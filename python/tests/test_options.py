from pathlib import Path

import pytest

import seqfarm
from seqfarm._options import option_argv


def test_keywords_become_bowtie2_options():
    argv = option_argv(
        {"X": 1000, "very_sensitive": True, "no_mixed": False, "3": 5,
         "score_min": "L,0,-0.2", "rdg": (5, 3), "un_conc_gz": Path("un.fq.gz"), "p": None},
        "align",
    )
    assert argv == ["-X", "1000", "--very-sensitive", "-3", "5", "--score-min",
                    "L,0,-0.2", "--rdg", "5,3", "--un-conc-gz", "un.fq.gz"]


def test_a_value_given_to_a_flag_is_an_option_error_naming_it():
    with pytest.raises(seqfarm.OptionError, match=r"dna='no': dna takes no value"):
        option_argv({"dna": "no"}, "search")
    with pytest.raises(seqfarm.OptionError, match=r"q=1: q takes no value"):
        option_argv({"q": 1}, "align")
    assert option_argv({"dna": True, "q": False, "matrix": None}, "search") == ["--dna"]
