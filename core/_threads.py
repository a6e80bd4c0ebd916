"""One BLAS / OpenMP thread for a segmentation call.

Per stroke the work is many small operations on at most a few thousand nodes (ARPACK's
matrix-vector products, k-means on a few hundred rows): a second thread only adds
synchronisation, and on a shared or loaded machine its spin-waiting multiplies the time
(profiled on a 2-core machine under load: k-means 0.15 s per restart and a 707-node
matrix-vector product 7.5 ms with two threads). The GUI worker runs with one thread for
the same reason (it leaves the other core to the window).
"""

from __future__ import annotations

import contextlib
import threading

_CONTROLLER = None
_LOCK = threading.Lock()


def one_thread():
    """A context in which BLAS and OpenMP use a single thread (a no-op without threadpoolctl)."""
    global _CONTROLLER
    try:
        from threadpoolctl import ThreadpoolController  # scikit-learn's own dependency
    except ImportError:  # pragma: no cover - scikit-learn requires it
        return contextlib.nullcontext()
    with _LOCK:
        if _CONTROLLER is None:
            _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=1)
