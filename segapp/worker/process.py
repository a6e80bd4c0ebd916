"""The worker process: reads one message at a time, answers it, exits when the window is gone.

Messages are tuples ``(Op, *args)`` (:mod:`.messages`); the worker answers zero or more
``(Reply.PROGRESS, text)`` and then ``(Reply.OK, value)`` or ``(Reply.ERROR, message)``. An
image arrives as ``(Op.IMAGE, token, shape, dtype)`` followed by its raw bytes, so it is never
pickled.

The worker exits when its parent dies: an idle worker reads end-of-file on its pipe, a busy
one is stopped by a thread that watches the parent's process id.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

from .messages import ENGINE_METHOD, Op, Reply

PARENT_POLL_S = 0.5


def _watch_parent(ppid: int) -> None:
    while True:
        time.sleep(PARENT_POLL_S)
        if os.getppid() != ppid:
            os._exit(0)


def serve(inbox, outbox, background: bool = False) -> int:
    """Serve requests from connection ``inbox`` with replies on ``outbox`` until EOF or ``quit``.

    ``background``: a worker whose results may wait (the preview's, the compare view's) runs
    at a lower scheduling priority (:func:`_yield_to_the_window`)."""
    if hasattr(signal, "SIGINT"):
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C in the terminal is the window's
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    leave_a_core_to_the_window()
    if background:
        _yield_to_the_window()
    import numpy as np

    from .engine import Engine

    engine = Engine()
    outbox.send((Reply.READY, os.getpid()))
    engine.warm_up()
    while True:
        try:
            msg = inbox.recv()
        except (EOFError, OSError):
            return 0  # the window is gone
        op, args = msg[0], msg[1:]
        if op == Op.QUIT:
            return 0
        try:
            if op == Op.IMAGE:
                token, shape, dtype = args
                buf = bytearray(inbox.recv_bytes())
                value = engine.set_image(token, np.frombuffer(buf, dtype=dtype).reshape(shape))
            elif op == Op.SEGMENT:
                outbox.send((Reply.PROGRESS, engine.describe(args[0])))
                value = engine.segment(args[0], progress=lambda text: outbox.send((Reply.PROGRESS, text)))
            elif op == Op.DIAGNOSTICS:
                value = {**diagnostics(), "received": dict(engine.received), "image_token": engine.token,
                         "cache_builds": engine.cache_builds()}
            else:
                value = getattr(engine, ENGINE_METHOD[Op(op)])(*args)
            reply = (Reply.OK, value)
        except Exception as e:  # noqa: BLE001 - every failure becomes a message, never a traceback
            reply = (Reply.ERROR, describe_error(e))
        try:
            outbox.send(reply)
        except (BrokenPipeError, OSError):
            return 0


BACKGROUND_NICE = 10


def _yield_to_the_window() -> None:
    """Lower this process's scheduling priority by :data:`BACKGROUND_NICE` (POSIX; elsewhere
    nothing). On a 2-core machine a preview still computing when the stroke is released took
    the core the stroke's own result needed: stroke to screen 0.20 s instead of 0.15 (e2cp,
    481x321, ``bench/gui_latency.py``, 2026-11-27)."""
    try:
        os.nice(BACKGROUND_NICE)
    except (AttributeError, OSError):  # pragma: no cover - Windows, or not permitted
        pass


def leave_a_core_to_the_window() -> None:
    """At most (cores - 1) BLAS threads here: on a 2-core machine a computation that takes
    both cores starves the GUI thread (wall-clock stalls twice its own work). Also called by
    ``bench/speed.py``, whose processes stand for this worker."""
    try:
        from threadpoolctl import threadpool_limits  # scikit-learn's own dependency
    except ImportError:
        return
    threadpool_limits(max(1, (os.cpu_count() or 2) - 1))


def describe_error(e: BaseException) -> str:
    from segapp import core

    if isinstance(e, core.SegappError):
        return str(e)
    if isinstance(e, MemoryError):
        return "out of memory; lower max_nodes or work_pixels"
    return f"{type(e).__name__}: {e}"


def diagnostics() -> dict:
    """Process id, peak memory and the GUI modules loaded here (there should be none)."""
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    gui = sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6"))
    return {"pid": os.getpid(), "peak_rss_mb": peak / 1024 if sys.platform != "darwin" else peak / 2**20,
            "gui_modules": gui}
