"""What every ``segapp`` subcommand shares: a parser whose errors are one line with exit
status 2, and ``--param NAME=VALUE`` parsing."""

from __future__ import annotations

import argparse


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, like every other error
        self.exit(2, f"segapp: error: {message}\n")


def parse_params(items):
    from core.errors import ParameterError

    out = {}
    for it in items:
        if "=" not in it:
            raise ParameterError(f"--param expects NAME=VALUE, got {it!r}")
        k, v = it.split("=", 1)
        out[k.strip()] = v.strip()
    return out
