"""Writing results where it cannot be done: missing folders, folders in the way, no
permission, a read-only file system, a full disk (mocked write errors), a process killed in
the middle of a write. Each gives an OutputError (exit status 2 and one line on the command
line) and leaves the previous file whole, with no temporary file behind."""

from __future__ import annotations

import errno
import json
import os
import signal

import numpy as np
import pytest

from segapp import core
from segapp.core import render
from segapp.core._io import atomic_write_bytes, atomic_write_text
from segapp.core.errors import OutputError, SegappError

from tests.helpers import make_bsds

from .helpers import (TMP_SUFFIX, Unchanged, encoded, expect_cli_error, expect_error, halves, noise,
                      run_subprocess, write)

OLD = b"previous content, must survive"


def _fail(err, where):
    """Patch ``where`` (os.open, os.fsync, os.replace, os.fdopen) to fail with ``err``."""
    def fail(*a, **k):
        raise OSError(err, os.strerror(err))
    return where, fail


FAULTS = {
    "full-disk-on-write": (errno.ENOSPC, "fdopen", "no space left"),
    "full-disk-on-fsync": (errno.ENOSPC, "fsync", "no space left"),
    "quota-exceeded": (errno.EDQUOT, "fsync", "quota exceeded"),
    "read-only-folder": (errno.EACCES, "open", "permission denied"),
    "read-only-file-system": (errno.EROFS, "open", "read-only"),
    "rename-refused": (errno.EBUSY, "replace", "busy"),
    "io-error": (errno.EIO, "fsync", "[Ii]nput/output error"),
}


def _patch(monkeypatch, fault):
    err, name, _ = FAULTS[fault]
    if name == "fdopen":  # the temporary file opens, its write fails (ENOSPC arrives there)
        real = os.fdopen

        class Full:
            def __init__(self, f):
                self.f = f

            def __enter__(self):
                return self

            def __exit__(self, *e):
                self.f.close()

            def write(self, data):
                self.f.write(data[: len(data) // 2])
                self.f.flush()
                raise OSError(err, os.strerror(err))

            def __getattr__(self, a):
                return getattr(self.f, a)

        monkeypatch.setattr("segapp.core._io.os.fdopen", lambda fd, mode: Full(real(fd, mode)))
    else:
        monkeypatch.setattr(f"segapp.core._io.os.{name}", _fail(err, name)[1])


@pytest.mark.parametrize("fault", list(FAULTS))
def test_atomic_write_fault_keeps_the_previous_file(fault, tmp_path, monkeypatch):
    target = write(tmp_path / "results.csv", OLD)
    _patch(monkeypatch, fault)
    with Unchanged(target):
        expect_error(OutputError, atomic_write_bytes, target, b"new" * 100000, match=FAULTS[fault][2])


@pytest.mark.parametrize("fault", ["full-disk-on-write", "read-only-folder"])
def test_constraint_file_fault(fault, tmp_path, monkeypatch):
    target = write(tmp_path / "c.json", OLD)
    _patch(monkeypatch, fault)
    with Unchanged(target):
        expect_error(OutputError, core.Constraints(must_link=[(1, 2, 3, 4)]).to_json, target)


@pytest.mark.parametrize("fault", ["full-disk-on-fsync", "read-only-file-system"])
def test_png_fault(fault, tmp_path, monkeypatch):
    target = write(tmp_path / "mask.png", OLD)
    _patch(monkeypatch, fault)
    with Unchanged(target):
        expect_error(OutputError, render.save_png, target, noise())


PLACES = {
    "missing-folder": (lambda t: t / "no" / "such" / "out.png", "folder .* does not exist"),
    "a-folder": (lambda t: (t / "out.png").mkdir() or t / "out.png", "it is a folder"),
    "parent-is-a-file": (lambda t: write(t / "file", b"x") / "out.png", "is not a folder"),
    "name-too-long": (lambda t: t / ("o" * 300 + ".png"), "too long"),
    "a-fifo": (lambda t: os.mkfifo(t / "out.png") or t / "out.png", "not a regular file"),
}


@pytest.mark.parametrize("case", list(PLACES))
def test_unwritable_place(case, tmp_path):
    make, match = PLACES[case]
    expect_error(OutputError, atomic_write_text, make(tmp_path), "x", match=match)


def test_no_permission_really(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes anywhere (the mocked read-only cases cover this)")
    d = tmp_path / "ro"
    d.mkdir()
    target = write(d / "out.csv", OLD)
    d.chmod(0o555)
    try:
        with Unchanged(target):
            expect_error(OutputError, atomic_write_bytes, target, b"new", match="no permission")
    finally:
        d.chmod(0o755)


def test_too_many_segments_for_a_label_png(tmp_path):
    expect_error(SegappError, render.save_labels, tmp_path / "m.png", np.arange(300).reshape(15, 20),
                 match="more than 256 segments")


# -- segapp segment ---------------------------------------------------------------------------
SEGMENT = {
    "out-missing-folder": (lambda t: ["--out", t / "no" / "m.png"], "does not exist"),
    "out-a-folder": (lambda t: ["--out", t], "it is a folder"),
    "eigenvectors-missing-folder": (lambda t: ["--eigenvectors", t / "no" / "e.png"], "does not exist"),
    "overlay-a-folder": (lambda t: ["--overlay", t], "it is a folder"),
    "out-is-the-input-image": (lambda t: ["--out", t / "in.png"], "it is an input file"),
    "out-is-the-constraint-file": (lambda t: ["--out", t / "c.json"], "it is an input file"),
    "out-equals-overlay": (lambda t: ["--overlay", t / "m.png"], "also another output"),
}


def _segment_inputs(t):
    img = write(t / "in.png", encoded(halves(), "PNG"))
    c = t / "c.json"
    c.write_text(json.dumps({"must_link": [[2, 2, 25, 35]]}))
    mask = write(t / "m.png", OLD)
    return img, c, mask


@pytest.mark.parametrize("case", list(SEGMENT))
def test_segment_outputs(case, tmp_path, capsys):
    img, c, mask = _segment_inputs(tmp_path)
    extra = SEGMENT[case][0](tmp_path)
    argv = ["segment", img, "--constraints", c, "--out", mask, "--param", "max_nodes=50", *extra]
    with Unchanged(img, c, mask):
        expect_cli_error(argv, capsys, SEGMENT[case][1])


@pytest.mark.parametrize("fault", ["full-disk-on-write", "read-only-folder", "read-only-file-system"])
def test_segment_write_fault(fault, tmp_path, capsys, monkeypatch):
    img, c, mask = _segment_inputs(tmp_path)
    _patch(monkeypatch, fault)
    with Unchanged(img, c, mask):
        expect_cli_error(["segment", img, "--out", mask, "--param", "max_nodes=50"], capsys, FAULTS[fault][2])


@pytest.mark.parametrize("args, match", [
    (lambda t: ["--screenshot", t / "no" / "shot.png"], "does not exist"),
    (lambda t: ["--screenshot", t], "it is a folder"),
])
def test_screenshot_output_checked_before_the_window(args, match, tmp_path, capsys):
    expect_cli_error(args(tmp_path), capsys, match)


# -- segapp evaluate ---------------------------------------------------------------------------
def _evaluate_setup(t):
    root = make_bsds(t / "bsds", n=1, h=20, w=30)
    out = write(t / "res.csv", OLD)
    summary = write(t / "res_summary.md", OLD)
    chart = write(t / "res_ari.png", OLD)
    argv = ["evaluate", "--bsds", root, "--out", out, "--rounds", "1", "--methods", "ncut", "--segments", "2"]
    return argv, out, summary, chart


EVALUATE = {
    "out-missing-folder": (lambda t, o: ["--out", t / "missing" / "r.csv"], "does not exist"),
    "out-a-folder": (lambda t, o: ["--out", t], "it is a folder"),
    "summary-taken-by-a-folder": (lambda t, o: (t / "x_summary.md").mkdir() or ["--out", t / "x.csv"],
                                  "x_summary.md: it is a folder"),
    "chart-taken-by-a-folder": (lambda t, o: (t / "x_ari.png").mkdir() or ["--out", t / "x.csv"],
                                "x_ari.png: it is a folder"),
}


@pytest.mark.parametrize("case", list(EVALUATE))
def test_evaluate_outputs(case, tmp_path, capsys):
    argv, out, summary, chart = _evaluate_setup(tmp_path)
    with Unchanged(out, summary, chart):
        expect_cli_error(argv + EVALUATE[case][0](tmp_path, out), capsys, EVALUATE[case][1])


@pytest.mark.parametrize("fault", ["full-disk-on-write", "full-disk-on-fsync", "read-only-folder"])
def test_evaluate_write_fault(fault, tmp_path, capsys, monkeypatch):
    """The benchmark runs, then the disk is full (or the folder read-only) when results.csv
    is written: one line, exit 2, and the previous results.csv, summary and chart intact."""
    argv, out, summary, chart = _evaluate_setup(tmp_path)
    _patch(monkeypatch, fault)
    with Unchanged(out, summary, chart):
        expect_cli_error(argv, capsys, FAULTS[fault][2])


# -- killed in the middle of a write ------------------------------------------------------------
HANG_IN_FSYNC = ("import os, sys, time\n"
                 "def hang(fd):\n"
                 "    print('writing', flush=True)\n"
                 "    time.sleep(120)\n"
                 "os.fsync = hang\n")


def _kill_when_writing(code, *args, timeout=120):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    p = subprocess.Popen([sys.executable, "-c", HANG_IN_FSYNC + code, *map(str, args)], cwd=root,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "PYTHONPATH": str(root)})
    try:
        for line in p.stdout:
            if line.strip() == "writing":
                break
        else:
            raise AssertionError(f"the child never reached the write: {p.stderr.read()}")
        os.kill(p.pid, signal.SIGKILL)
    finally:
        p.wait(timeout=timeout)
    return p


KILLED = {
    "atomic-write": ("from core._io import atomic_write_bytes; atomic_write_bytes(sys.argv[1], b'new' * 10**6)",
                     lambda t: [t / "res.csv"]),
    "segment-mask": ("from segapp.cli import main; main(['segment', sys.argv[2], '--out', sys.argv[1], "
                     "'--param', 'max_nodes=50'])", lambda t: [t / "res.csv", write(t / "in.png",
                                                                                   encoded(halves(), "PNG"))]),
    "evaluate-results-csv": ("from segapp.cli import main; main(['evaluate', '--bsds', sys.argv[2], '--out', "
                             "sys.argv[1], '--rounds', '1', '--methods', 'ncut', '--segments', '2'])",
                             lambda t: [t / "res.csv", make_bsds(t / "bsds", n=1, h=20, w=30)]),
}


@pytest.mark.parametrize("case", list(KILLED))
def test_sigkill_mid_write_keeps_the_previous_file(case, tmp_path):
    """SIGKILL while the new file is being written: the previous file is whole; the killed
    writer's temporary file is removed by the next write to the same path."""
    code, args = KILLED[case]
    args = args(tmp_path)
    target = write(args[0], OLD)
    p = _kill_when_writing(code, *args)
    assert p.returncode == -signal.SIGKILL
    assert target.read_bytes() == OLD
    left = [q for q in tmp_path.iterdir() if q.name.endswith(TMP_SUFFIX)]
    assert len(left) == 1 and left[0].name.startswith(f".{target.name}.{p.pid}.")
    atomic_write_bytes(target, b"next")
    assert target.read_bytes() == b"next" and not left[0].exists()


def test_cli_run_in_a_fresh_interpreter_prints_no_traceback(tmp_path):
    """The installed entry point end to end: a bad file gives one line and exit status 2."""
    bad = write(tmp_path / "bad.png", b"\x89PNG\r\n\x1a\n garbage")
    r = run_subprocess("import sys; from segapp.cli import main; sys.exit(main(sys.argv[1:]))", "segment", bad)
    assert r.returncode == 2 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
