"""The window's end of the worker: start it, send one message, wait for the answer.

Blocking by design: :class:`segapp.gui.runner.SegmentRunner` calls it from its own thread.
If the worker dies (killed, crashed, out of memory) the client starts a new one, sends it
the image and ground truth again and retries the message once.
"""

from __future__ import annotations

import multiprocessing
import threading

import numpy as np

from segapp import core

from .messages import Op, Reply
from .process import serve


class WorkerError(core.SegappError):
    """The worker answered with an error message (bad parameters, a method that failed)."""


class WorkerDied(core.SegappError):
    """The worker stopped twice while handling the same message."""


class WorkerClient:
    """One worker process and the state it must hold (replayed after a restart).

    Thread-safe: one message at a time (a lock), so several runners may share a client.
    """

    def __init__(self, background: bool = False):
        """``background``: the worker runs at a lower priority than the window's own
        (:func:`~segapp.worker.process.serve`): for the preview and the compare view."""
        self.background = bool(background)
        self._lock = threading.RLock()
        self._proc = None
        self._inbox = self._outbox = None  # our receiving and sending connections
        self._image = None  # (token, array): sent once per image, again after a restart
        self._ground_truth = None
        self._closing = False
        self.restarts = 0

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    # -- life cycle -----------------------------------------------------------------
    def start(self) -> None:
        """Start the worker process (a fresh interpreter: ``spawn``) and wait until it is ready."""
        with self._lock:
            if self._proc is None:
                self._start()

    def _start(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        child_in, self._outbox = ctx.Pipe(duplex=False)
        self._inbox, child_out = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=serve, args=(child_in, child_out, self.background), daemon=True,
                                 name="segapp-worker")
        self._proc.start()
        child_in.close()  # only the worker holds these ends: its read sees EOF when we die
        child_out.close()
        tag, _pid = self._inbox.recv()
        assert tag == Reply.READY
        if self._closing:  # stopped while it started (the window closed at once)
            self._stop()

    def stop(self) -> None:
        """Stop the worker now: an idle one is asked to quit, a busy one is killed (the call
        in progress then fails instead of restarting it). Call again to reap a killed one."""
        self._closing = True
        if self._lock.acquire(blocking=False):
            try:
                self._stop()
            finally:
                self._lock.release()
        elif self._proc is not None and self._proc.pid is not None:
            self._proc.kill()
        # a worker still starting (created, not yet started) stops itself when it is ready (_start)

    def _stop(self) -> None:
        if self._proc is None:
            return
        try:
            self._outbox.send((Op.QUIT,))
        except OSError:
            pass
        self._proc.join(2)
        if self._proc.is_alive():
            self._proc.kill()
            self._proc.join()
        for c in (self._inbox, self._outbox):
            c.close()
        self._proc = None

    def _restart(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.join()
            for c in (self._inbox, self._outbox):
                c.close()
            self._proc = None
        self.restarts += 1
        self._start()
        if self._image is not None:
            self._send_image(*self._image)
            self._expect_ok()
        if self._ground_truth is not None:
            self._outbox.send((Op.GROUND_TRUTH, *self._ground_truth))
            self._expect_ok()

    # -- calls ----------------------------------------------------------------------
    def set_image(self, token: int, image: np.ndarray) -> None:
        """Send the image (its raw bytes, never pickled); kept to send again after a restart."""
        image = np.ascontiguousarray(image)

        def send():
            self._image = (token, image)
            self._send_image(token, image)

        self._call(send)

    def set_ground_truth(self, token: int, ground_truth: np.ndarray | None) -> None:
        """The segmentation results are scored against (ARI), under ``token``."""
        def send():
            self._ground_truth = (token, ground_truth)
            self._outbox.send((Op.GROUND_TRUTH, token, ground_truth))

        self._call(send)

    def call(self, *msg, progress=None):
        """Send ``msg`` (op, *args) and return the worker's answer.

        Raises
        ------
        WorkerError
            The worker answered with an error message.
        WorkerDied
            The worker stopped twice on this message.
        """
        return self._call(lambda: self._outbox.send(msg), progress)

    def _call(self, send, progress=None):
        with self._lock:
            return self._call_locked(send, progress)

    def _call_locked(self, send, progress):
        if self._closing:
            raise WorkerDied("the computation process was stopped")
        for attempt in range(2):
            try:
                if self._proc is None or not self._proc.is_alive():
                    raise EOFError
                send()
                return self._expect_ok(progress)
            except (EOFError, OSError):
                if self._closing:
                    raise WorkerDied("the computation process was stopped") from None
                if attempt == 1:
                    break
                self._restart()
        raise WorkerDied("the computation process stopped twice on this request; "
                         "try fewer nodes (max_nodes) or a smaller work_pixels")

    def _send_image(self, token, image) -> None:
        self._outbox.send((Op.IMAGE, token, image.shape, image.dtype.str))
        self._outbox.send_bytes(memoryview(image).cast("B"))

    def _expect_ok(self, progress=None):
        while True:
            tag, value = self._inbox.recv()
            if tag == Reply.PROGRESS:
                if progress is not None:
                    progress(value)
                continue
            if tag == Reply.ERROR:
                raise WorkerError(value)
            return value
