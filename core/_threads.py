"""One OpenMP thread for k-means, one BLAS thread for ARPACK.

k-means runs on a few hundred rows: a second OpenMP thread only adds synchronisation, and
on a shared or loaded machine its spin-waiting multiplies the time (profiled on the 2-core
machine under load: 0.15 s per k-means restart with two threads, ~1 ms with one).

ARPACK's matrix-vector products on node graphs (at most ``max_nodes`` rows, a few MB) are
too small for a second BLAS thread to pay: on a loaded 2-core machine each product took
~8 ms with two threads against ~0.1 ms with one (measured while an evaluation ran), so
:func:`core.spectral.eigen.top_eigh` runs ARPACK, and LAPACK on graphs of at most
``DENSE_BELOW`` nodes (ssap's 256: 0.5 s with two threads under load, 11 ms with one), with one BLAS thread
(:func:`one_blas_thread`). This also makes its result independent of the machine's core
count (round-off in a threaded product depends on it).
"""

from __future__ import annotations

import contextlib
import threading

_CONTROLLER = None
_LOCK = threading.Lock()


def _controller():
    global _CONTROLLER
    from threadpoolctl import ThreadpoolController  # scikit-learn's own dependency

    with _LOCK:
        if _CONTROLLER is None:
            _CONTROLLER = ThreadpoolController()
    return _CONTROLLER


def one_blas_thread():
    """A context in which BLAS uses a single thread (a no-op without threadpoolctl)."""
    try:
        return _controller().limit(limits=1, user_api="blas")
    except ImportError:  # pragma: no cover - scikit-learn requires it
        return contextlib.nullcontext()


def one_thread():
    """A context in which OpenMP uses a single thread (a no-op without threadpoolctl)."""
    try:
        return _controller().limit(limits=1, user_api="openmp")
    except ImportError:  # pragma: no cover - scikit-learn requires it
        return contextlib.nullcontext()
