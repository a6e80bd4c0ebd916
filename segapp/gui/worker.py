"""Segmentation off the GUI thread; a newer request supersedes older ones."""

from __future__ import annotations

import warnings

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

import core


class _Job(QRunnable):
    def __init__(self, runner, rid, args):
        super().__init__()
        self.runner, self.rid, self.args = runner, rid, args

    def run(self):
        image, cons, method, k, params = self.args
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                seg = core.segment(image, cons, method=method, n_segments=k, **params)
            self.runner._done.emit(self.rid, seg, "")
        except core.SegappError as e:
            self.runner._done.emit(self.rid, None, str(e))
        except Exception as e:  # noqa: BLE001 - shown to the user, never a traceback
            self.runner._done.emit(self.rid, None, f"{type(e).__name__}: {e}")


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
        self.latest = 0
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
