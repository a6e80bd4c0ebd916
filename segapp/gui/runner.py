"""The window's link to the worker process, in a thread of its own.

One thread calls the blocking :class:`~segapp.worker.client.WorkerClient`: jobs such as
"hold this image" or "export" run in order; segmentation requests coalesce, so while one
runs only the newest waits, and a result is shown only if its request is still the newest.
Node maps arrive once per representation and are cached here; every result leaves this
module with its node map filled in and its arrays read-only. The suggested next stroke of a
result is asked for once the result is on its way to the window (and only while no newer
request waits), so the canvas shows the result without waiting for it.
"""

from __future__ import annotations

import dataclasses
import itertools
import threading
from collections import OrderedDict, deque

from PySide6.QtCore import QObject, Signal

from segapp.worker.client import WorkerClient
from segapp.worker.messages import Op
from segapp.core.pixel_refinement import cut_nodes
from segapp.worker.results import NodeMap, SegmentRequest

MAPS_KEPT = 4
_RIDS = itertools.count(1)  # request ids unique in the process (runners may share a worker)


class SegmentRunner(QObject):
    """Signals (always delivered on the GUI thread)

    finished(rid, SegmentResult) : the result of the newest request only
    failed(rid, message) : the newest request failed (an older one's failure is dropped)
    suggested(rid, suggestion) : the suggested next stroke of result ``rid``
        (:attr:`~segapp.worker.results.SegmentResult.suggestion`), after its ``finished``
    progress(text) : what the worker is preparing now
    progressOf(rid, text) : the same, with the id of the request it is for
    busyChanged(bool)
    taskDone(name, value) / taskFailed(name, message) : image, ground truth, export, score jobs
    """

    finished = Signal(int, object)
    failed = Signal(int, str)
    suggested = Signal(int, object)
    progress = Signal(str)
    progressOf = Signal(int, str)
    busyChanged = Signal(bool)
    taskDone = Signal(str, object)
    taskFailed = Signal(str, str)
    _deliver = Signal(object)  # a callable to run on the GUI thread

    def __init__(self, client: WorkerClient | None = None, every_newer: bool = False, background: bool = False):
        """``client``: a worker shared with other runners (not stopped by :meth:`shutdown`).
        ``every_newer``: emit ``finished`` for every result newer than the last one emitted,
        even when a newer request already waits (a preview that follows a moving pointer
        shows each result it gets; the default shows only the newest request's).
        ``background``: a worker of its own runs at a lower priority than the window's
        (previews and the compare view yield to the result of a released stroke)."""
        super().__init__()
        self.every_newer = every_newer
        self._emitted = 0
        self._owns_client = client is None
        self.client = client or WorkerClient(background=background)
        self.latest = 0
        self._busy = False
        self._cond = threading.Condition()
        self._tasks: deque = deque()
        self._pending: SegmentRequest | None = None
        self._running = False
        self._undelivered = 0  # answers emitted by the thread, not yet handled on the GUI thread
        self._stop = False
        self._asked_again = None  # the request asked again after the worker stopped during its suggestion
        self._maps: OrderedDict = OrderedDict()  # only touched by the thread
        self._deliver.connect(self._on_deliver)
        self._thread = threading.Thread(target=self._serve, name="segapp-runner", daemon=True)
        self._thread.start()

    # -- requests (GUI thread) --------------------------------------------------------
    def request(self, image_token, must_link, cannot_link, blocks, method, n_segments, params,
                order=None, previous=None, suggest: bool = True) -> int:
        """Queue a segmentation; it supersedes any request still waiting. Returns its id.

        ``order``: the items' creation sequence numbers (:attr:`core.Constraints.order`);
        ``previous``: the id of the result on screen (:attr:`SegmentRequest.previous`)."""
        self.latest = next(_RIDS)
        req = SegmentRequest(self.latest, image_token, tuple(must_link), tuple(cannot_link), tuple(blocks),
                             method, int(n_segments), dict(params), order=order, previous=previous,
                             suggest=suggest)
        with self._cond:
            self._pending = req
            self._cond.notify()
        self._set_busy(True)
        return self.latest

    def set_image(self, token: int, image) -> None:
        self._task(Op.IMAGE, lambda: self.client.set_image(token, image))

    def set_ground_truth(self, token: int, ground_truth) -> None:
        self._task(Op.GROUND_TRUTH, lambda: self.client.set_ground_truth(token, ground_truth))

    def call(self, op: str, *args) -> None:
        """Queue a worker call; its answer arrives as ``taskDone(op, value)`` or ``taskFailed(op, message)``.

        ``score(rid)`` -> (rid, token, ARI); ``export(kind, path, rid, opacity, boundaries_only)``
        -> path; ``read_constraints(path, shape)`` -> (path, Constraints); ``diagnostics()``.
        """
        self._task(op, lambda: self.client.call(op, *args))

    @property
    def idle(self) -> bool:
        """Nothing queued, running, or answered but not yet handled on the GUI thread."""
        with self._cond:
            return not (self._running or self._tasks or self._pending or self._undelivered)

    def shutdown(self) -> None:
        """Drop waiting work and stop the worker process (killed if busy: never waits for it)."""
        with self._cond:
            self._stop = True
            self._tasks.clear()
            self._pending = None
            self._cond.notify()
        self.latest = next(_RIDS)  # whatever finishes now is stale
        if self._owns_client:
            self.client.stop()  # a busy worker is killed: closing never waits for a computation
        self._thread.join()
        if self._owns_client:
            self.client.stop()  # reaped

    # -- the thread -----------------------------------------------------------------
    def _task(self, name, fn) -> None:
        with self._cond:
            self._tasks.append((name, fn))
            self._cond.notify()

    def _serve(self) -> None:
        try:
            self.client.start()
        except Exception as e:  # noqa: BLE001 - shown in the window, never a traceback
            _send(self.taskFailed, "start", f"cannot start the computation process: {e}")
        while True:
            with self._cond:
                while not (self._stop or self._tasks or self._pending):
                    self._cond.wait()
                if self._stop:
                    return
                if self._tasks:
                    job, req = self._tasks.popleft(), None
                else:
                    job, req, self._pending = None, self._pending, None
                self._running = True
            done, ok = self._segment(req) if req is not None else (self._run_task(*job), False)
            follow = ok and req.suggest
            with self._cond:
                self._undelivered += 1
                self._running = follow  # busy until the suggestion is delivered too
            _send(self._deliver, done)
            if follow:
                self._suggest(req)

    def _run_task(self, name, fn):
        try:
            value = fn()
        except Exception as e:  # noqa: BLE001 - WorkerError / WorkerDied / anything: a message
            message = str(e)
            return lambda: self.taskFailed.emit(name, message)
        return lambda: self.taskDone.emit(name, value)

    def _segment(self, req: SegmentRequest):
        req = dataclasses.replace(req, have_maps=tuple(self._maps))
        try:
            res = self.client.call(Op.SEGMENT, req, progress=lambda text: (_send(self.progress, text),
                                                                           _send(self.progressOf, req.rid, text)))
        except Exception as e:  # noqa: BLE001
            message = str(e)
            return (lambda: self._on_segmented(req.rid, None, message)), False
        res = dataclasses.replace(res, node_map=self._map_of(res)).freeze()
        return (lambda: self._on_segmented(req.rid, res, "")), True

    def _suggest(self, req: SegmentRequest) -> None:
        """Ask the worker for the suggestion of ``req``'s result and deliver it
        (``suggested``, only while ``req`` is the newest request), unless a newer request
        already waits (its result will have its own). A worker that stopped meanwhile (and
        was restarted, or not) no longer holds the result the next stroke builds on:
        ``req`` is asked again (once), as a stroke would be."""
        rid = req.rid
        with self._cond:
            if self._pending is not None or self._stop:
                self._running = False
                return
        restarts = self.client.restarts
        try:
            _, suggestion = self.client.call(Op.SUGGEST, rid)
            lost = self.client.restarts != restarts
        except Exception:  # noqa: BLE001 - no ghost then; the result itself is shown
            suggestion, lost = None, True
        then = lambda: self.suggested.emit(rid, suggestion) if rid == self.latest else None  # noqa: E731
        with self._cond:
            if lost and not self._stop and self._pending is None and rid != self._asked_again:
                self._asked_again, self._pending = rid, req  # served next, as a new stroke's request
                self._cond.notify()
            self._undelivered += 1
            self._running = False
        _send(self._deliver, then)

    def _map_of(self, res) -> NodeMap:
        """The map of ``res.map_key``: the base map from the cache (or as sent), cut where
        the pixel refinement relabelled pixels (here, off the GUI thread)."""
        key = res.base_key or res.map_key
        if res.node_map is not None:
            self._maps[key] = res.node_map
            while len(self._maps) > MAPS_KEPT:
                self._maps.popitem(last=False)
        self._maps.move_to_end(key)
        base = self._maps[key]
        if res.refine is None:
            return base
        parts, _, _ = cut_nodes(base.node_map, *res.refine, res.n_segments)
        return NodeMap(res.map_key, parts, base.factor, base.shape)

    # -- back on the GUI thread ---------------------------------------------------------
    def _on_deliver(self, done) -> None:
        with self._cond:
            self._undelivered -= 1
        done()
        if self._busy and self.idle:  # the last answer was a task's (a score, an image): idle now
            self._set_busy(False)

    def _on_segmented(self, rid, res, err) -> None:
        if self.idle:
            self._set_busy(False)
        if rid != self.latest and not (self.every_newer and res is not None and rid > self._emitted):
            return  # superseded: never shown
        self._emitted = max(self._emitted, rid)
        if res is None:
            self.failed.emit(rid, err)
        else:
            self.finished.emit(rid, res)

    def _set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self.busyChanged.emit(busy)


def _send(signal, *args) -> None:
    """Emit from the runner's thread; when the window (and so the signal's source) is already
    gone, there is no one left to tell: nothing is raised in the thread."""
    try:
        signal.emit(*args)
    except RuntimeError:  # "Signal source has been deleted"
        pass
