"""The worker process: no Qt in it, the image sent once, node-level results per stroke,
restart and retry after it dies, and it never outlives the window."""

import os
import pickle
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

from segapp import core
from segapp.gui.canvas import CANNOT, MUST
from segapp.resources import DEMO_IMAGE
from segapp.worker.messages import Op
from segapp.worker.client import WorkerClient
from segapp.worker.results import SegmentRequest
from tests.segapp.conftest import RESULT_TIMEOUT_MS, drag, draw, make_window, settle

ROOT = Path(__file__).resolve().parents[2]
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _diagnostics(qtbot, window) -> dict:
    with qtbot.waitSignal(window.runner.taskDone, timeout=RESULT_TIMEOUT_MS,
                          check_params_cb=lambda name, value: name == "diagnostics") as sig:
        window.runner.call(Op.DIAGNOSTICS)
    return sig.args[1]


def test_the_worker_process_imports_no_qt(qtbot, window):
    draw(qtbot, window, MUST, 40, 60, 40, 300)
    diag = _diagnostics(qtbot, window)
    assert diag["pid"] != os.getpid() and diag["received"]["segment"] >= 1
    assert diag["gui_modules"] == []
    assert "PySide6" in sys.modules  # while this process, the window's, has it


def test_the_image_is_sent_once_not_per_stroke(qtbot, window):
    window.controller.preview.set_enabled(False)  # one request per stroke, none while dragging
    before = _diagnostics(qtbot, window)
    assert before["image_token"] == window.model.image_token
    for k in range(3):
        draw(qtbot, window, CANNOT, 150, 100 + 10 * k, 160, 250)
    after = _diagnostics(qtbot, window)
    assert after["received"]["image"] == before["received"]["image"]
    assert after["received"]["segment"] == before["received"]["segment"] + 3


def test_per_stroke_only_node_level_results_cross_the_process_boundary(shared_worker):
    image = core.load_image(DEMO_IMAGE)
    shared_worker.set_image(10**6, image)
    req = SegmentRequest(1, 10**6, ((40, 60, 40, 300, 1.0),), (), (), "csp", 2, {})
    first = shared_worker.call(Op.SEGMENT, req)
    assert first.node_map is not None and first.node_map.node_map.shape == image.shape[:2]
    second = shared_worker.call(Op.SEGMENT, SegmentRequest(
        2, 10**6, req.must_link, ((150, 100, 160, 250, 1.0),), (), "csp", 2, {}, have_maps=(first.base_key,)))
    assert second.node_map is None and second.base_key == first.base_key
    # node-level, plus the pixels the refinement relabelled: no (H, W) array
    changed = 0 if second.refine is None else len(second.refine[1])
    assert changed < image.shape[0] * image.shape[1] / 4
    assert len(pickle.dumps(second)) < 40 * len(second.node_labels) * 8 + 8 * changed
    assert second.honoured["cannot_link"].shape == (1,)
    third = shared_worker.call(Op.SEGMENT, SegmentRequest(
        3, 10**6, req.must_link, (), (), "csp", 2, {"max_nodes": 300}, have_maps=(first.base_key,)))
    assert third.base_key != first.base_key and third.node_map is not None  # a new representation


def test_worker_killed_while_idle_restarts_and_the_next_stroke_succeeds(qtbot):
    window = make_window(qtbot)  # its own worker
    client = window.runner.client
    old = client.pid
    os.kill(old, signal.SIGKILL)
    qtbot.waitUntil(lambda: not client._proc.is_alive(), timeout=10000)
    draw(qtbot, window, CANNOT, 150, 100, 160, 250)
    assert client.restarts == 1 and client.pid != old
    assert window.model.result.honoured["cannot_link"].shape == (1,)
    assert "⚠" not in window.status.text()
    window.close()


def test_worker_killed_while_busy_restarts_and_the_request_is_retried(qtbot):
    window = make_window(qtbot)
    client = window.runner.client
    killed = []

    def kill_once(text):  # runs in the runner thread the moment the worker starts the job
        if not killed:
            killed.append(client.pid)
            os.kill(client.pid, signal.SIGKILL)

    window.runner.progress.connect(kill_once, Qt.DirectConnection)
    window.model.set_param("max_nodes", 1200)  # a new representation: the job takes a while
    with qtbot.waitSignal(window.model.resultChanged, timeout=RESULT_TIMEOUT_MS):
        window.canvas.view.tool = MUST
        drag(window.canvas, 40, 60, 40, 300)
    settle(qtbot, window)
    assert killed and client.restarts == 1 and client.pid != killed[0]
    res = window.model.result
    assert res.rid == window.runner.latest and res.params["max_nodes"] == 1200
    assert res.honoured["must_link"].shape == (1,) and "⚠" not in window.status.text()
    window.close()


def test_worker_killed_during_the_suggestion_asks_for_the_result_again(qtbot):
    """The suggestion is a call of its own after the result: a worker that dies during it
    is restarted without the result the next stroke builds on, so the stroke's request is
    asked again (once) and its result and ghost come from the new worker."""
    window = make_window(qtbot)
    client = window.runner.client
    real_call, killed, asked = client.call, [], []

    def call(op, *args, **kwargs):  # the runner thread's calls
        if op == Op.SUGGEST and not killed:
            killed.append(client.pid)
            os.kill(client.pid, signal.SIGKILL)
        if op == Op.SEGMENT:
            asked.append(args[0].rid)
        return real_call(op, *args, **kwargs)

    client.call = call
    draw(qtbot, window, MUST, 40, 60, 40, 300)
    assert killed and client.restarts == 1 and client.pid != killed[0]
    rid = window.runner.latest
    assert asked[-2:] == [rid, rid]  # the stroke's request, and once more for the new worker
    res = window.model.result
    assert res.rid == rid and res.honoured["must_link"].shape == (1,) and res.suggestion is not None
    assert window.canvas.ghost.suggestion == res.suggestion and "⚠" not in window.status.text()
    window.close()


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int((d / "stat").read_text().split(")")[-1].split()[1]) == pid:
                    out.append(int(d.name))
            except (OSError, ValueError, IndexError):
                continue
    return out


def _env(tmp_path, **extra):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
               PYTHONPATH=str(ROOT), **extra)
    return env


APP = "import sys; from segapp.cli import main; sys.exit(main())"


@linux_only
@pytest.mark.parametrize("busy", [False, True], ids=["idle", "busy"])
def test_the_worker_exits_when_its_parent_is_killed(qtbot, tmp_path, busy):
    parent = textwrap.dedent(f"""
        import sys, numpy as np
        from segapp.worker.client import WorkerClient
        from segapp.worker.results import SegmentRequest
        c = WorkerClient(); c.start()
        print(c.pid, flush=True)
        if {busy}:
            c.set_image(1, np.random.RandomState(0).randint(0, 255, (3000, 4000, 3), np.uint8))
            print("busy", flush=True)
            c.call("segment", SegmentRequest(1, 1, (), (), (), "csp", 2, {{"max_nodes": 2000}}))
        sys.stdin.read()
    """)
    p = subprocess.Popen([sys.executable, "-c", parent], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True, env=_env(tmp_path))
    worker = int(p.stdout.readline())
    if busy:
        assert p.stdout.readline().strip() == "busy"
    assert _alive(worker)
    p.kill()
    p.wait()
    qtbot.waitUntil(lambda: not _alive(worker), timeout=10000)


@linux_only
def test_no_worker_outlives_the_app_after_sigkill(qtbot, tmp_path):
    app = subprocess.Popen([sys.executable, "-c", APP, str(DEMO_IMAGE)], env=_env(tmp_path, QT_QPA_PLATFORM="offscreen"),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        qtbot.waitUntil(lambda: len(_children(app.pid)) >= 1, timeout=30000)
        children = _children(app.pid)  # the worker (and multiprocessing's resource tracker)
    finally:
        app.kill()
        app.wait()
    qtbot.waitUntil(lambda: not any(_alive(c) for c in children), timeout=10000)


def test_no_display_is_one_line_and_exit_2(tmp_path):
    if not sys.platform.startswith("linux"):
        pytest.skip("the X11/Wayland check is Linux's")
    r = subprocess.run([sys.executable, "-c", APP, str(DEMO_IMAGE)], env=_env(tmp_path), capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("segapp: error: no display")
    assert "Traceback" not in r.stderr


def test_client_reports_worker_errors_as_messages(shared_worker):
    from segapp.worker.client import WorkerError

    shared_worker.set_image(10**6 + 1, np.zeros((20, 30), np.uint8))
    with pytest.raises(WorkerError, match="unknown method 'nope'; valid methods"):
        shared_worker.call(Op.SEGMENT, SegmentRequest(1, 10**6 + 1, (), (), (), "nope", 2, {}))
    assert shared_worker.call(Op.DIAGNOSTICS)["pid"] == shared_worker.pid  # still serving


def test_a_stopped_client_refuses_work_instead_of_restarting():
    from segapp.worker.client import WorkerDied

    c = WorkerClient()
    c.start()
    c.stop()
    assert c.pid is None
    with pytest.raises(WorkerDied, match="stopped"):
        c.call(Op.DIAGNOSTICS)
    assert c.pid is None and c.restarts == 0


def test_the_engine_builds_the_affinity_once_for_many_strokes():
    from segapp.worker.engine import Engine

    engine = Engine()
    image = core.load_image(DEMO_IMAGE)
    engine.set_image(7, image)
    links = [(40, 60, 40, 300, 1.0), (150, 100, 160, 250, 1.0), (60, 80, 200, 90, 1.0)]
    for rid in range(1, 4):
        res = engine.segment(SegmentRequest(rid, 7, tuple(links[:rid]), (), (), "csp", 2, {}))
        assert res.node_labels.shape == res.node_embedding.shape[:1] and len(res.node_labels) >= res.n_nodes
    builds = engine.cache_builds()
    assert builds["affinity"] == 1 and builds["csp-spectrum"] == 1
    engine.set_image(8, image[:, ::-1].copy())  # a new image: its own graph
    engine.segment(SegmentRequest(4, 8, tuple(links[:1]), (), (), "csp", 2, {}))
    assert engine.cache_builds()["affinity"] == 1  # counted for the held image only


def test_the_suggestion_is_its_own_call_after_the_result():
    """A segment request answers without the suggested next stroke (the result is not kept
    waiting for it); ``Op.SUGGEST`` with its id then gives core.suggest's best for exactly
    that result and those strokes, and None for a result no longer held."""
    from segapp.core.suggestion import suggest
    from segapp.worker.engine import KEEP_RESULTS, Engine

    engine = Engine()
    image = core.load_image(DEMO_IMAGE)
    engine.set_image(7, image)
    links = ((40, 60, 40, 300, 1.0),)
    res = engine.segment(SegmentRequest(1, 7, links, (), (), "e2cp", 2, {}))
    assert res.suggestion is None
    rid, got = engine.suggestion(1)
    best = suggest(engine._recent[1], core.Constraints(must_link=links))[0]
    assert rid == 1 and got == (best.point, best.segment, best.anchors)
    (r, c), own, anchors = got
    assert 0 <= r < image.shape[0] and 0 <= c < image.shape[1] and 0 <= own < 2 and len(anchors) == 2
    for k in range(2, KEEP_RESULTS + 3):  # the first result drops out of the ones held (the newest is pinned)
        engine.segment(SegmentRequest(k, 7, links, (), (), "e2cp", 2, {}))
    assert engine.suggestion(1) == (1, None) and engine.suggestion(k)[1] is not None


def _engine_with_a_result(monkeypatch, k: int):
    """An engine holding the demo image and result 1 (one must-link, csp, ``k`` segments),
    with ``core.segment`` spied on: (engine, links, result 1, the ``previous`` each later
    call got, the real ``core.segment``)."""
    from segapp.worker import engine as engine_mod

    engine = engine_mod.Engine()
    engine.set_image(7, core.load_image(DEMO_IMAGE))
    links = ((40, 60, 40, 300, 1.0), (150, 100, 160, 250, 1.0))
    engine.segment(SegmentRequest(1, 7, links[:1], (), (), "csp", k, {}))
    got, real = [], engine_mod.core.segment

    def spy(*args, **kwargs):
        got.append(kwargs.get("previous"))
        return real(*args, **kwargs)

    monkeypatch.setattr(engine_mod.core, "segment", spy)
    return engine, links, engine._recent[1], got, real


def test_the_engine_passes_the_result_on_screen_as_previous(monkeypatch):
    """A request naming the result on screen (SegmentRequest.previous) is segmented with
    core.segment(previous=that result); an id the engine no longer holds means no previous."""
    engine, links, shown, got, real = _engine_with_a_result(monkeypatch, 3)
    res = engine.segment(SegmentRequest(2, 7, links, (), (), "csp", 3, {}, previous=1))
    engine.segment(SegmentRequest(3, 7, links, (), (), "csp", 3, {}, previous=999))
    engine.segment(SegmentRequest(4, 7, links, (), (), "csp", 3, {}))
    assert got[0] is shown and got[1] is None and got[2] is None
    want = real(engine.prepared, core.Constraints(must_link=links), method="csp", n_segments=3, previous=shown)
    assert np.array_equal(res.node_labels, want.node_labels)


def test_the_result_on_screen_stays_held_through_a_burst_and_a_compare_round(monkeypatch):
    """In a burst no result is shown until it ends, so every request names the same old
    result as ``previous``; a compare view names each method's last result in turn. Both stay
    held however many results come after them (they were evicted after KEEP_RESULTS, and the
    request was silently segmented without the result on screen: CI saw the window's result
    differ from core.segment with it)."""
    from segapp.worker import engine as engine_mod

    engine, links, shown, got, _ = _engine_with_a_result(monkeypatch, 2)
    burst = range(2, engine_mod.KEEP_RESULTS + 4)
    for rid in burst:
        engine.segment(SegmentRequest(rid, 7, links, (), (), "csp", 2, {}, previous=1))
    assert len(got) == len(burst) and all(p is shown for p in got)
    methods = ("csp", "e2cp", "gp-propagation", "rom", "spectral-learning", "ssap")
    last, rid = {}, 100
    for _ in range(2):  # two strokes' compare rounds, each method naming its own last result
        for m in methods:
            rid += 1
            got.clear()
            engine.segment(SegmentRequest(rid, 7, links, (), (), m, 2, {}, previous=last.get(m)))
            assert got[0] is (None if m not in last else engine._recent[last[m]])
            last[m] = rid
    assert len(engine._recent) <= engine_mod.KEEP_RESULTS + 2 * len(methods)  # bounded


def test_the_busy_line_stops_when_the_last_answer_is_a_tasks(qtbot, window):
    """Issue: after switching Berkeley thumbnails the busy line kept counting with the result on
    screen. A result that arrived while a task (a score, a ground truth) still waited left the
    runner busy, and a task's answer never cleared it."""
    from segapp.worker.messages import Op

    runner = window.runner
    m = window.model
    with qtbot.waitSignal(runner.taskDone, timeout=RESULT_TIMEOUT_MS):
        runner.request(m.image_token, [(40, 60, 200, 300, 1.0)], [], [], m.method, m.n_segments, m.params)
        qtbot.waitUntil(lambda: runner._running, timeout=RESULT_TIMEOUT_MS)
        runner.call(Op.DIAGNOSTICS)  # queued while the segmentation runs: answered after it
    qtbot.waitUntil(lambda: runner.idle, timeout=RESULT_TIMEOUT_MS)
    assert not runner._busy and not window.busy.isVisible()
    assert window.progress.text() == ""


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="POSIX scheduling priorities")
def test_the_preview_and_compare_workers_yield_to_the_strokes_worker():
    # a preview still computing when a stroke is released must not take the core the
    # stroke's result needs: background workers run at a lower priority, the main one not
    main, background = WorkerClient(), WorkerClient(background=True)
    try:
        main.start()
        background.start()
        own = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, main.pid) == own
        assert os.getpriority(os.PRIO_PROCESS, background.pid) > own
    finally:
        main.stop()
        background.stop()



def test_the_window_makes_its_preview_and_compare_workers_in_the_background(window):
    # (their runners only: no process starts until they are first used)
    assert window.controller.preview.runner.client.background
    assert window.compare.runner.client.background
    assert not window.runner.client.background  # the strokes' own worker keeps its priority
