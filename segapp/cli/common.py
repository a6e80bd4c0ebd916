"""What every ``segapp`` subcommand shares: a parser whose errors are one line with exit
status 2, ``--param NAME=VALUE`` parsing, and the checks made before any work starts
(outputs writable, seeds valid)."""

from __future__ import annotations

import argparse
import os

# Arguments of core.segment that --param must not set: each has its own flag.
RESERVED = {"random_state": "--seed", "n_segments": "--segments", "method": "--method",
            "constraints": "--constraints", "image": "the IMAGE argument", "max_pixels": "--max-pixels"}


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, like every other error
        self.exit(2, f"segapp: error: {' '.join(message.split())}\n")


def add_max_pixels(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-pixels", type=int, metavar="N",
                   help="refuse images with more pixels than N (default $SEGAPP_MAX_PIXELS or 100 million; "
                        "a guard against decompression bombs)")


def parse_params(items) -> dict:
    """``--param NAME=VALUE`` items as a dict of strings (converted later by the specs).

    Raises
    ------
    ParameterError
        No ``=``, an empty name, a name given twice, or a name that is an argument with its
        own flag (``random_state``: ``--seed``, ``n_segments``: ``--segments``, ...).
    """
    from segapp.core.errors import ParameterError

    out = {}
    for it in items:
        if "=" not in it:
            raise ParameterError(f"--param expects NAME=VALUE, got {it!r}")
        k, v = (x.strip() for x in it.split("=", 1))
        if not k:
            raise ParameterError(f"--param expects NAME=VALUE, got {it!r} (no name)")
        if k in RESERVED:
            raise ParameterError(f"--param {k}=... sets an argument, not a parameter; use {RESERVED[k]}")
        if k in out:
            raise ParameterError(f"--param {k} is given twice")
        out[k] = v
    return out


def check_outputs(outputs, inputs=()) -> None:
    """Before any work: every output can be written, none is an input or given twice.

    Raises
    ------
    OutputError
    """
    from segapp.core._io import check_writable
    from segapp.core.errors import OutputError

    taken = {os.path.realpath(p): "an input file" for p in inputs if p}
    for p in outputs:
        if p is None:
            continue
        check_writable(p)
        real = os.path.realpath(p)
        if real in taken:
            raise OutputError(f"cannot write {p}: it is {taken[real]}; choose another output name")
        taken[real] = "also another output of this command"
