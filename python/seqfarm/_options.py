"""Keyword options to command-line arguments, so that ``Aligner(index, X=1000,
very_sensitive=True, score_min="L,0,-0.2")`` means exactly what
``seqfarm align -X 1000 --very-sensitive --score-min L,0,-0.2`` (and bowtie2) means.

Rules: a one-character name is a short option (``X=1000`` -> ``-X 1000``, ``p=2`` ->
``-p 2``); a longer name is a long option with ``_`` written ``-`` (``no_mixed=True`` ->
``--no-mixed``; a leading digit works as a string key: ``**{"3": 5}`` -> ``-3 5``).
``True`` gives the bare flag, ``False`` and ``None`` leave the option out, a list or
tuple gives comma-separated values (``rdg=(5, 3)`` -> ``--rdg 5,3``).
"""

import os


def option_argv(options):
    """The command-line arguments for a dict of keyword options (in the dict's order)."""
    argv = []
    for name, value in options.items():
        if value is None or value is False:
            continue
        flag = ("-" if len(name) == 1 else "--") + name.replace("_", "-")
        if value is True:
            argv.append(flag)
        elif isinstance(value, (list, tuple)):
            argv += [flag, ",".join(_text(v) for v in value)]
        else:
            argv += [flag, _text(value)]
    return argv


def _text(value):
    return os.fspath(value) if isinstance(value, os.PathLike) else str(value)
