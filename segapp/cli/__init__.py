"""The ``segapp`` command: the GUI by default, ``segment`` / ``methods`` / ``evaluate`` headless.

Errors are one line on stderr and exit status 2; no traceback reaches the user. A bug (an
exception segapp did not mean to raise) is one line too, with exit status 70;
``SEGAPP_DEBUG=1`` shows its traceback.
"""

from __future__ import annotations

import os
import sys

SUBCOMMANDS = ("segment", "methods", "evaluate")
EXIT_ERROR, EXIT_BUG, EXIT_INTERRUPTED = 2, 70, 130


def _say(kind: str, what) -> None:
    print(f"segapp: {kind}: {' '.join(str(what).split())}", file=sys.stderr)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from segapp.core.errors import SegappError

    try:
        if argv and argv[0] in SUBCOMMANDS:
            import importlib

            code = importlib.import_module(f"segapp.cli.{argv[0]}").main(argv[1:])
        else:
            from .gui import main as gui_main

            code = gui_main(argv)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return code
    except SystemExit as e:  # argparse: --help (0) or a usage error (2, already one line)
        return e.code if isinstance(e.code, int) else (0 if e.code is None else EXIT_ERROR)
    except SegappError as e:
        _say("error", e)
        return EXIT_ERROR
    except Warning as w:  # a warning turned into an error (contradictory constraints)
        _say("error", w)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except MemoryError:
        _say("error", "out of memory; lower max_nodes or work_pixels, or use a smaller image")
        return EXIT_ERROR
    except BrokenPipeError:  # `segapp methods | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR
    except Exception as e:  # noqa: BLE001 - the last guard: a bug, still one line
        if os.environ.get("SEGAPP_DEBUG"):
            raise
        _say("internal error", f"{type(e).__name__}: {e} (a bug in segapp; SEGAPP_DEBUG=1 shows the traceback)")
        return EXIT_BUG
