"""File work off the GUI thread: one thread, jobs in order, answers back on the GUI thread.

Image decoding, ``loadmat``, constraint files (read, validate, write) and autosave writes
run here; jobs run in the order given, so a later autosave never lands before an earlier one.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from PySide6.QtCore import QObject, Signal

from segapp import core


def describe(e: BaseException) -> str:
    """A one-line message for the user (never a traceback)."""
    if isinstance(e, core.SegappError):
        return str(e)
    if isinstance(e, OSError):
        where = f" {e.filename}" if e.filename else ""
        return f"cannot access{where}: {e.strerror or e}"
    if isinstance(e, MemoryError):
        return "out of memory"
    return f"{type(e).__name__}: {e}"


class Background(QObject):
    """``run(fn, done, failed)``: ``fn()`` in the thread, then ``done(value)`` or
    ``failed(message)`` on the GUI thread. ``idle`` says nothing is queued or running."""

    _finished = Signal(object, object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="segapp-files")
        self._queued = 0
        self._finished.connect(self._deliver)

    @property
    def idle(self) -> bool:
        return self._queued == 0

    def run(self, fn, done=None, failed=None) -> None:
        self._queued += 1

        def job():
            try:
                value = fn()
            except Exception as e:  # noqa: BLE001 - the user sees a message
                self._finished.emit(failed, describe(e))
            else:
                self._finished.emit(done, value)

        self._pool.submit(job)

    def _deliver(self, callback, value) -> None:
        self._queued -= 1
        if callback is not None:
            callback(value)

    def shutdown(self) -> None:
        """Wait for queued jobs (an autosave in flight is finished, not lost)."""
        self._pool.shutdown(wait=True)
