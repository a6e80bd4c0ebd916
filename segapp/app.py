"""Start the GUI (``segapp [IMAGE]``) or render it to a PNG (``--screenshot``)."""

from __future__ import annotations

import os
import sys


def run(args) -> int:
    import core
    from segapp.resources import DEMO_IMAGE, window_icon

    if args.screenshot and "QT_QPA_PLATFORM" not in os.environ and not os.environ.get("DISPLAY"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from segapp.gui.main_window import MainWindow

    from PySide6.QtWidgets import QMessageBox

    from segapp.gui import persistence

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setOrganizationName("segapp")
    app.setApplicationName("segapp")
    app.setDesktopFileName("segapp")  # matches packaging/segapp.desktop (Wayland, task bars)
    app.setWindowIcon(window_icon())  # every window, dialog and the task bar
    win = MainWindow()
    crashed = None if (args.screenshot or args.image) else persistence.crashed_session()
    if crashed and QMessageBox.question(
            win, "Restore session?", f"segapp did not close cleanly. Restore the session on "
            f"{crashed['image']} with its {len(crashed['constraints'].get('must_link', [])) + len(crashed['constraints'].get('cannot_link', []))} "
            "links and its blocks?") == QMessageBox.Yes:
        if persistence.restore(win.model, crashed):
            win.method_box.setCurrentText(win.model.method)
            win.k_box.setValue(win.model.n_segments)
            win.show()
            return app.exec()
    path = args.image or str(DEMO_IMAGE)
    if not win.model.open_image(path):
        print(f"segapp: error: cannot open {path}", file=sys.stderr)
        return 2
    if args.berkeley:
        win.open_berkeley(args.berkeley)
    if args.method:
        if args.method not in core.METHODS:
            raise core.ParameterError(f"unknown method {args.method!r}; valid methods: {', '.join(core.METHODS)}")
        win.method_box.setCurrentText(args.method)
    if args.segments:
        win.k_box.setValue(args.segments)
    if args.constraints:
        c = core.Constraints.from_json(args.constraints)
        c.validate(win.model.image.shape[:2])
        win.model.set_constraints(c)
    win.show()
    if args.screenshot:
        out = args.screenshot
        state = {"code": 1}

        def shoot(*_):
            if win.runner.running is not None or win.runner.pending is not None:
                return
            app.processEvents()
            state["code"] = 0 if win.grab().save(out) else 1
            app.quit()

        win.model.resultChanged.connect(lambda *_: QTimer.singleShot(150, shoot))
        win.runner.failed.connect(lambda *_: QTimer.singleShot(150, shoot))
        QTimer.singleShot(60000, app.quit)
        app.exec()
        if state["code"] == 0:
            print(out)
        return state["code"]
    return app.exec()
