"""Entry point of the frozen app: PyInstaller runs this file as ``__main__``."""

import multiprocessing
import sys

from segapp.cli import main

if __name__ == "__main__":
    # The GUI's worker process is spawned from this executable: the child must become the
    # worker, not a second app.
    multiprocessing.freeze_support()
    if sys.argv[1:2] == ["evaluate"]:
        # joblib's default process backend (loky) starts its workers with `python -c ...`,
        # which a frozen executable cannot run (joblib/loky#375, open); `--jobs N` runs N
        # threads here instead, the same computation with less parallel speed-up.
        import joblib

        with joblib.parallel_config(backend="threading"):
            sys.exit(main())
    sys.exit(main())
