"""The ``segapp`` command: the GUI by default, ``segment`` / ``methods`` / ``evaluate`` headless.

Errors are one line on stderr and exit status 2; no traceback reaches the user.
"""

from __future__ import annotations

import sys

SUBCOMMANDS = ("segment", "methods", "evaluate")


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from core.errors import SegappError

    try:
        if argv and argv[0] in SUBCOMMANDS:
            import importlib

            return importlib.import_module(f"segapp.cli.{argv[0]}").main(argv[1:])
        from .gui import main as gui_main

        return gui_main(argv)
    except SegappError as e:
        print(f"segapp: error: {e}", file=sys.stderr)
        return 2
    except Warning as w:  # a warning turned into an error (contradictory constraints)
        print(f"segapp: error: {w}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except MemoryError:
        print("segapp: error: out of memory; lower max_nodes", file=sys.stderr)
        return 2
