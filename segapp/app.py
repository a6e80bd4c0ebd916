"""Start the GUI (``segapp [IMAGE]``) or render it to a PNG (``--screenshot``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

SCREENSHOT_TIMEOUT_MS = 120_000


def check_display(screenshot: bool) -> None:
    """Choose the offscreen platform for screenshots; refuse in one line when there is no display.

    Raises
    ------
    core.SegappError
        No X11 or Wayland display on Linux and no ``QT_QPA_PLATFORM`` chosen (Qt would abort).
    """
    from segapp import core

    if os.environ.get("QT_QPA_PLATFORM") or not sys.platform.startswith("linux"):
        return
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return
    if screenshot:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        return
    raise core.SegappError("no display: set DISPLAY (X11) or WAYLAND_DISPLAY, or use --screenshot "
                           "or 'segapp segment' without a window")


def run(args) -> int:
    from segapp import core
    from segapp.resources import DEMO_IMAGE, window_icon

    if args.method and args.method not in core.METHODS:
        raise core.ParameterError(f"unknown method {args.method!r}; valid methods: {', '.join(core.METHODS)}")
    if args.screenshot:
        out = Path(args.screenshot)
        if out.is_dir() or not out.parent.is_dir():
            raise core.SegappError(f"cannot write the screenshot to {out}: "
                                   + ("it is a folder" if out.is_dir() else f"no folder {out.parent}"))
    check_display(bool(args.screenshot))
    from segapp.qt_libs import check_xcb

    check_xcb()  # a missing X library is one message naming its package, not Qt's abort
    from PySide6.QtCore import QTimer
    if args.screenshot:
        _private_settings()
    from PySide6.QtWidgets import QApplication

    from segapp.gui import recovery
    from segapp.gui.main_window import MainWindow
    from segapp.gui.unix_signals import close_on_signals

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setOrganizationName("segapp")
    app.setApplicationName("segapp")
    app.setDesktopFileName("segapp")  # matches packaging/segapp.desktop (Wayland, task bars)
    app.setWindowIcon(window_icon())  # every window, dialog and the task bar
    win = MainWindow()
    model, controller = win.model, win.controller
    failed = {"message": None}
    model.errorOccurred.connect(lambda msg: failed.update(message=msg))
    if args.method:
        model.set_method(args.method)
    if args.segments:
        model.set_segments(args.segments)
    for name, value in getattr(args, "params", {}).items():
        model.set_param(name, value)
    then = (lambda: controller.load_constraints(args.constraints)) if args.constraints else None  # noqa: E731
    if args.screenshot:
        controller.open_image(args.image or str(DEMO_IMAGE), then)
    else:  # unsaved work from last time is offered however the app is launched
        recovery.startup(win, args.image, then, default=str(DEMO_IMAGE))
        stop = close_on_signals(app, win.stop_by_signal)  # noqa: F841 - lives until exec returns
    if args.berkeley:
        win.open_berkeley(args.berkeley)
    if getattr(args, "size", None):
        win.resize(*args.size)
    win.show()
    if getattr(args, "compare", None):
        win.compare.paper_box.setChecked(args.compare == "paper")
        win.compare_dock.show()
        win.compare_dock.raise_()
    if not args.screenshot:
        return app.exec()
    return _screenshot(app, win, args.screenshot, failed)


def _private_settings() -> None:
    """A screenshot reads and writes no one's settings: QSettings go to a fresh temporary
    folder (defaults for method and K unless given; the recent-files list and the last
    folder of the user's own settings are left as they are). The folder is removed when the
    process exits."""
    import atexit
    import shutil
    import tempfile

    from PySide6.QtCore import QSettings

    folder = tempfile.mkdtemp(prefix="segapp-screenshot-settings-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    for fmt in (QSettings.NativeFormat, QSettings.IniFormat):
        QSettings.setPath(fmt, QSettings.UserScope, folder)


def _screenshot(app, win, out, failed) -> int:
    """Wait until the image is shown and segmented (or an error is), save the window, quit."""
    from PySide6.QtCore import QTimer

    state = {"code": 1}

    def shoot():
        if failed["message"] and win.model.image is None:
            print(f"segapp: error: {failed['message']}", file=sys.stderr)
            state["code"] = 2
            app.quit()
            return
        if win.model.image is None or not win.controller.idle or win.drawing:
            return
        if win.model.result is None and not failed["message"]:
            return
        if win.compare.active and (win.compare.busy or win.compare.stale):
            return
        timer.stop()
        app.processEvents()
        state["code"] = 0 if win.grab().save(out) else 2
        if state["code"]:
            print(f"segapp: error: cannot write the screenshot to {out}", file=sys.stderr)
        app.quit()

    timer = QTimer(interval=100)
    timer.timeout.connect(shoot)
    timer.start()
    QTimer.singleShot(SCREENSHOT_TIMEOUT_MS, app.quit)
    app.exec()
    win.close()
    if state["code"] == 0:
        print(out)
    elif state["code"] == 1 and not Path(out).exists():
        print(f"segapp: error: no result within {SCREENSHOT_TIMEOUT_MS // 1000} s; nothing written", file=sys.stderr)
    return state["code"]
