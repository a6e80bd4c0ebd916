"""The whole app as a process (issue 12): SIGKILL right after a burst of strokes loses none,
the restore is offered however it is relaunched, SIGINT and SIGTERM close it cleanly, and no
worker or resource tracker outlives it. Each launch is the real ``segapp`` entry point,
offscreen, with the restore question answered by the driver below."""

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from segapp.gui import journal
from segapp.resources import DEMO_IMAGE
from tests.segapp.test_worker import _alive, _children

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals and /proc")

# Prints "OFFER n_sessions n_items image" when asked to restore (answers Yes), "SHOWN image
# n_items" once a result is on screen, then draws BURST strokes in one go (no event-loop turn
# between them, far under the old 300 ms autosave delay) and prints "DRAWN n_items".
DRIVER = textwrap.dedent("""
    import os, sys
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication
    import pyqtgraph as pg
    from segapp.cli import main
    from segapp.gui import recovery
    from segapp.gui.canvas import CANNOT, MUST
    from tests.probe import drag

    def offer(parent, sessions):
        n = sum(len(v) for v in sessions[0]["items"].values())
        print("OFFER", len(sessions), n, sessions[0]["image"], flush=True)
        return True

    recovery.ask_restore = offer
    pg.setConfigOption("mouseRateLimit", 0)
    app = QApplication(sys.argv[:1])
    burst = int(os.environ.get("BURST", "0"))

    def poll():
        wins = [w for w in app.topLevelWidgets() if type(w).__name__ == "MainWindow"]
        if not wins or wins[0].model.result is None or not wins[0].controller.idle:
            return
        timer.stop()
        w = wins[0]
        print("SHOWN", w.model.path, len(w.model.constraints), flush=True)
        h, wd = w.model.shape
        for k in range(burst):
            w.canvas.view.tool = MUST if k % 2 else CANNOT
            drag(w.canvas, 5 + (7 * k) % (h - 10), 5, 5 + (11 * k) % (h - 10), wd - 6)
        if burst:
            print("DRAWN", len(w.model.constraints), flush=True)

    timer = QTimer(interval=50)
    timer.timeout.connect(poll)
    timer.start()
    sys.exit(main(sys.argv[1:]))
""")


def _env(tmp_path, **extra):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "config"),
               XDG_DATA_HOME=str(tmp_path / "data"), PYTHONPATH=str(ROOT), **extra)
    return env


def _sessions(tmp_path):
    return journal.unfinished_sessions(tmp_path / "data" / "segapp" / "segapp" / "sessions")


class App:
    def __init__(self, tmp_path, *args, burst=0):
        self.p = subprocess.Popen([sys.executable, "-c", DRIVER, *map(str, args)], env=_env(tmp_path, BURST=str(burst)),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        self.lines = []

    def expect(self, word, timeout=120):
        """The next stdout line starting with ``word``, split."""
        import selectors

        sel = selectors.DefaultSelector()
        sel.register(self.p.stdout, selectors.EVENT_READ)
        while True:
            if not sel.select(timeout):
                self.p.kill()
                raise AssertionError(f"no {word} line; got {self.lines}; stderr: {self.p.stderr.read()[-2000:]}")
            line = self.p.stdout.readline()
            if not line:
                raise AssertionError(f"exited before {word}: {self.lines}; stderr: {self.p.stderr.read()[-2000:]}")
            self.lines.append(line.strip())
            if line.startswith(word):
                return line.split()

    def children(self):
        return _children(self.p.pid)

    def signal(self, sig, timeout=60):
        self.p.send_signal(sig)
        return self.p.wait(timeout)


def test_sigkill_after_a_burst_loses_no_stroke_and_restore_is_offered_bare_and_with_an_image(qtbot, tmp_path):
    first = App(tmp_path, DEMO_IMAGE, burst=20)
    assert first.expect("SHOWN")[2] == "0"
    assert first.expect("DRAWN")[1] == "20"
    kids = first.children()  # the worker and multiprocessing's resource tracker
    first.signal(signal.SIGKILL)
    qtbot.waitUntil(lambda: not any(_alive(c) for c in kids), timeout=15000)  # none outlives the app
    (s,) = _sessions(tmp_path)
    assert sum(len(v) for v in s["items"].values()) == 20  # every stroke of the burst

    bare = App(tmp_path)  # `segapp`
    assert bare.expect("OFFER")[1:3] == ["1", "20"]
    assert bare.expect("SHOWN")[1:] == [str(DEMO_IMAGE), "20"]
    bare.signal(signal.SIGKILL)

    with_image = App(tmp_path, DEMO_IMAGE)  # `segapp IMAGE`, as a double-click on the file does
    assert with_image.expect("OFFER")[1:3] == ["1", "20"]
    assert with_image.expect("SHOWN")[1:] == [str(DEMO_IMAGE), "20"]
    kids = with_image.children()
    assert with_image.signal(signal.SIGINT) == 0  # Ctrl+C in the terminal: a clean close
    assert "Traceback" not in with_image.p.stderr.read()
    qtbot.waitUntil(lambda: not any(_alive(c) for c in kids), timeout=15000)
    (s,) = _sessions(tmp_path)  # closed by a signal with restored, unsaved strokes: kept
    assert s["end"] == "stopped" and sum(len(v) for v in s["items"].values()) == 20


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_with_nothing_drawn_closes_cleanly_and_offers_nothing(qtbot, tmp_path, sig):
    app = App(tmp_path, DEMO_IMAGE)
    app.expect("SHOWN")
    kids = app.children()
    assert app.signal(sig) == 0
    err = app.p.stderr.read()
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    qtbot.waitUntil(lambda: not any(_alive(c) for c in kids), timeout=15000)
    assert _sessions(tmp_path) == []
