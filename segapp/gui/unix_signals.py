"""SIGINT (Ctrl+C in the terminal) and SIGTERM close the window cleanly.

Python runs a signal handler only when the interpreter gets control, which Qt's event loop
does not give it; the signal's number is written to a socket (``signal.set_wakeup_fd``) that
the event loop watches, and the window is closed from there like any other event.
"""

from __future__ import annotations

import signal
import socket

from PySide6.QtCore import QSocketNotifier

HANDLED = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM") if hasattr(signal, name))


def close_on_signals(app, stop) -> object:
    """Call ``stop(signal_name)`` on the GUI thread when SIGINT or SIGTERM arrives.

    Returns the notifier (keep a reference); ``app`` parents it.
    """
    if not hasattr(signal, "set_wakeup_fd") or not hasattr(socket, "socketpair"):
        return None
    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    for sig in HANDLED:
        signal.signal(sig, lambda *_: None)  # the wakeup byte does the work

    notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Read, app)

    def woke():
        try:
            data = reader.recv(64)
        except OSError:
            return
        for number in data:
            if number in HANDLED:
                stop(signal.Signals(number).name)

    notifier.activated.connect(woke)
    notifier._sockets = (reader, writer)  # live as long as the notifier
    return notifier
