"""Keyword options to command-line arguments, so that ``Aligner(index, X=1000,
very_sensitive=True, score_min="L,0,-0.2")`` means exactly what
``seqfarm align -X 1000 --very-sensitive --score-min L,0,-0.2`` (and bowtie2) means.

Rules: a one-character name is a short option (``X=1000`` -> ``-X 1000``, ``p=2`` ->
``-p 2``); a longer name is a long option with ``_`` written ``-`` (``no_mixed=True`` ->
``--no-mixed``; a leading digit works as a string key: ``**{"3": 5}`` -> ``-3 5``).
``True`` gives the bare flag, ``False`` and ``None`` leave the option out, a list or
tuple gives comma-separated values (``rdg=(5, 3)`` -> ``--rdg 5,3``). An option that
takes no value (``dna``, ``no_mixed``) takes only ``True``, ``False`` or ``None``.
"""

import functools
import os

from . import _native


@functools.lru_cache(maxsize=None)
def _flags(command):
    return frozenset(_native.flag_options(command))


def option_argv(options, command):
    """The ``seqfarm COMMAND`` arguments for a dict of keyword options (in the dict's
    order). A value other than a bool or ``None`` for an option of ``command`` that
    takes none raises :class:`seqfarm.OptionError` (``dna="no"`` would otherwise turn
    ``no`` into an input file)."""
    argv = []
    flags = _flags(command)
    for name, value in options.items():
        spelled = name.replace("_", "-")
        if spelled in flags and not (value is None or isinstance(value, bool)):
            raise _native.OptionError(
                f"{name}={value!r}: {name} takes no value; give {name}=True or {name}=False"
            )
        if value is None or value is False:
            continue
        flag = ("-" if len(name) == 1 else "--") + spelled
        if value is True:
            argv.append(flag)
        elif isinstance(value, (list, tuple)):
            argv += [flag, ",".join(_text(v) for v in value)]
        else:
            argv += [flag, _text(value)]
    return argv


def _text(value):
    return os.fspath(value) if isinstance(value, os.PathLike) else str(value)


def depth_argv(bam, prefix, window, bed, options):
    """The ``seqfarm depth`` arguments of a job (the command first)."""
    argv = ["depth", "-o", os.fspath(prefix)]
    if window is not None:
        argv += ["--window", str(window)]
    if bed is not None:
        argv += ["--bed", os.fspath(bed)]
    return argv + option_argv(options, "depth") + ["--", os.fspath(bam)]
