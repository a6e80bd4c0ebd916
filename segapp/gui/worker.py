"""Segmentation off the GUI thread, in a worker process; a newer request supersedes older ones.

The computation runs in one persistent worker process (spawned once, so its superpixel cache
survives between strokes): dense LAPACK calls hold Python's GIL for up to ~100 ms, which
in a worker *thread* would stall the GUI. A thread per job only waits on the process's
future, which releases the GIL.
"""

from __future__ import annotations

import warnings

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

import core


def display_arrays(seg, ground_truth=None) -> dict:
    """Everything the views show, computed here in the worker so the GUI thread only hands
    finished arrays to pyqtgraph: segment colours, boundaries, eigenvector images, ARI."""
    import numpy as np
    from skimage.segmentation import find_boundaries

    from core import render
    from core.eval.metrics import adjusted_rand

    out = {
        "colors": render.palette(int(seg.labels.max()) + 1)[seg.labels],
        "boundaries": find_boundaries(seg.labels, mode="inner"),
        "eigen_rgb": [render.diverging(seg.eigenvectors[..., k]) for k in range(min(4, seg.eigenvectors.shape[2]))],
    }
    if ground_truth is not None and ground_truth.shape == seg.labels.shape:
        out["ari"] = adjusted_rand(ground_truth, seg.labels)
    return out


def compute(image, cons, method, k, params, ground_truth):
    """Run in the worker process: ``(Segmentation, "")`` or ``(None, message)``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            seg = core.segment(image, cons, method=method, n_segments=k, **params)
        seg.display = display_arrays(seg, ground_truth)
        seg.labels, seg.eigenvectors  # painted now: the representation stays behind
        seg.representation = None  # large and not needed by the views
        return seg, ""
    except core.SegappError as e:
        return None, str(e)
    except MemoryError:
        return None, "out of memory; lower max_nodes"
    except Exception as e:  # noqa: BLE001 - shown to the user, never a traceback
        return None, f"{type(e).__name__}: {e}"


def _executor():
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))


class _Job(QRunnable):
    def __init__(self, runner, rid, args):
        super().__init__()
        self.runner, self.rid, self.args = runner, rid, args

    def run(self):
        from concurrent.futures.process import BrokenProcessPool

        try:
            seg, err = self.runner.executor.submit(compute, *self.args, self.runner.ground_truth).result()
        except BrokenProcessPool:
            self.runner.executor = _executor()
            seg, err = None, "the computation process stopped unexpectedly; it has been restarted"
        except Exception as e:  # noqa: BLE001
            seg, err = None, f"{type(e).__name__}: {e}"
        self.runner._done.emit(self.rid, seg, err)


class SegmentRunner(QObject):
    """Runs at most one job; while it runs only the newest request waits (no stale queue).

    Signals
    -------
    finished(request_id, Segmentation) : the result of the newest request only
    failed(request_id, message)
    busyChanged(int) : 1 when a job starts, 0 when the last one ends
    """

    finished = Signal(int, object)
    failed = Signal(int, str)
    busyChanged = Signal(int)  # 1 busy, 0 idle
    _done = Signal(int, object, str)

    def __init__(self):
        super().__init__()
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self.executor = _executor()
        self.latest = 0
        self.ground_truth = None  # set by the window: scored in the worker
        self.running = None
        self.pending = None
        self._done.connect(self._on_done)

    def request(self, image, cons, method, k, params) -> int:
        self.latest += 1
        args = (image, cons, method, k, dict(params))
        if self.running is None:
            self._start(self.latest, args)
        else:
            self.pending = (self.latest, args)
        return self.latest

    def _start(self, rid, args):
        self.running = rid
        self.busyChanged.emit(1)
        self.pool.start(_Job(self, rid, args))

    def _on_done(self, rid, seg, err):
        self.running = None
        if self.pending is not None:
            nxt, self.pending = self.pending, None
            self._start(*nxt)
        else:
            self.busyChanged.emit(0)
        if rid != self.latest:
            return  # superseded: never shown
        if seg is None:
            self.failed.emit(rid, err)
        else:
            self.finished.emit(rid, seg)

    def wait(self, ms=-1):
        return self.pool.waitForDone(ms)

    def shutdown(self):
        """Drop the waiting request and wait for the running job (on window close)."""
        self.pending = None
        self.latest += 1  # whatever finishes now is stale
        self.pool.waitForDone()
        self.executor.shutdown(wait=True, cancel_futures=True)
