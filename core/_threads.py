"""One OpenMP thread for k-means.

k-means runs on a few hundred rows: a second OpenMP thread only adds synchronisation, and
on a shared or loaded machine its spin-waiting multiplies the time (profiled on the 2-core
machine under load: 0.15 s per k-means restart with two threads, ~1 ms with one).

BLAS is not limited: csp's ARPACK result depends on round-off, and one BLAS thread instead
of two changed its labels on the demo image (the same on main), so that choice is left to
the lead.
"""

from __future__ import annotations

import contextlib
import threading

_CONTROLLER = None
_LOCK = threading.Lock()


def one_thread():
    """A context in which OpenMP uses a single thread (a no-op without threadpoolctl)."""
    global _CONTROLLER
    try:
        from threadpoolctl import ThreadpoolController  # scikit-learn's own dependency
    except ImportError:  # pragma: no cover - scikit-learn requires it
        return contextlib.nullcontext()
    with _LOCK:
        if _CONTROLLER is None:
            _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=1, user_api="openmp")
