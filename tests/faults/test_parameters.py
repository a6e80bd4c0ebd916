"""Bad arguments and parameters: ``core.segment`` raises ParameterError naming the problem;
``segapp segment`` / ``segapp methods`` / ``segapp`` (before any window opens) exit 2 with
one line."""

from __future__ import annotations

import numpy as np
import pytest

from segapp import core
from segapp.core.errors import ParameterError

from .helpers import expect_cli_error, expect_error, run_cli

IMG = np.random.RandomState(0).rand(20, 24)

SEGMENT = {
    "n_segments-1": ({"n_segments": 1}, ">= 2"),
    "n_segments-0": ({"n_segments": 0}, ">= 2"),
    "n_segments-negative": ({"n_segments": -3}, ">= 2"),
    "n_segments-fraction": ({"n_segments": 2.5}, "integer"),
    "n_segments-string": ({"n_segments": "2"}, "integer"),
    "n_segments-true": ({"n_segments": True}, "integer"),
    "n_segments-none": ({"n_segments": None}, "integer"),
    "n_segments-10-pow-12": ({"n_segments": 10**12, "max_nodes": 20}, "exceeds the"),
    "random_state-minus-1": ({"random_state": -1}, "out of range \\[0, 4294967295\\]"),
    "random_state-2-pow-32": ({"random_state": 2**32}, "out of range"),
    "random_state-fraction": ({"random_state": 1.5}, "random_state must be None, an integer"),
    "random_state-string": ({"random_state": "abc"}, "random_state must be None, an integer"),
    "random_state-generator": ({"random_state": np.random.default_rng(0)}, "Generator"),
    "random_state-true": ({"random_state": True}, "random_state must be None"),
    "method-unknown": ({"method": "kmeans"}, "valid methods: ncut"),
    "method-none": ({"method": None}, "valid methods"),
    "method-number": ({"method": 5}, "valid methods"),
    "constraints-string": ({"constraints": "c.json"}, "must be a core.Constraints"),
    "constraints-dict": ({"constraints": {"must_link": []}}, "must be a core.Constraints"),
    "unknown-parameter": ({"sigma": 0.1}, "unknown parameter 'sigma'.*valid parameters"),
    "parameter-of-another-method": ({"method": "csp", "alpha": 0.5}, "unknown parameter 'alpha'"),
    "max_nodes-zero": ({"max_nodes": 0}, "out of range"),
    "max_nodes-huge": ({"max_nodes": 10**9}, "out of range"),
    "max_nodes-string": ({"max_nodes": "many"}, "must be int"),
    "max_nodes-fraction": ({"max_nodes": 100.5}, "must be int"),
    "sigma_position-zero": ({"sigma_position": 0}, "out of range \\(0"),
    "sigma_position-nan": ({"sigma_position": float("nan")}, "finite"),
    "sigma_intensity-inf": ({"sigma_intensity": float("inf")}, "finite"),
    "sigma_intensity-negative": ({"sigma_intensity": -1.0}, "out of range"),
    "representation-unknown": ({"representation": "hexagons"}, "one of 'superpixels', 'grid'"),
    "stroke_radius-two": ({"stroke_radius": 2.0}, "out of range"),
    "work_pixels-tiny": ({"work_pixels": 5}, "out of range"),
    "max_pairs-zero": ({"max_pairs": 0}, "out of range"),
    "beta-string": ({"method": "csp", "beta": "big"}, "must be float"),
    "beta-nan": ({"method": "csp", "beta": float("nan")}, "finite"),
    "beta-above-lambda-max-vol": ({"method": "csp", "beta": 1e12,
                                   "constraints": core.Constraints(cannot_link=[(1, 1, 18, 20)])}, "below"),
    "algorithm-unknown": ({"method": "gp-propagation", "algorithm": "C"}, "one of 'auto', 'A', 'B'"),
    "alpha-above-one": ({"method": "e2cp", "alpha": 1.5}, "out of range"),
    "n_neighbors-zero": ({"method": "e2cp", "n_neighbors": 0}, "out of range"),
    "bool-as-number": ({"method": "e2cp", "alpha": True}, "must be float"),
}


@pytest.mark.parametrize("case", list(SEGMENT))
def test_segment_arguments(case):
    kwargs, match = SEGMENT[case]
    expect_error(ParameterError, core.segment, IMG, match=match, **kwargs)


def test_seed_limits_are_valid():
    a = core.segment(IMG, method="ncut", random_state=0, max_nodes=30)
    b = core.segment(IMG, method="ncut", random_state=2**32 - 1, max_nodes=30)
    assert a.labels.shape == b.labels.shape == IMG.shape


CLI = {
    "seed-minus-1": (["--seed", "-1"], "--seed = -1 is out of range"),
    "seed-2-pow-32": (["--seed", str(2**32)], "--seed = 4294967296 is out of range"),
    "seed-not-a-number": (["--seed", "abc"], "invalid int value"),
    "segments-1": (["--segments", "1"], ">= 2"),
    "segments-word": (["--segments", "two"], "invalid int value"),
    "param-random_state": (["--param", "random_state=1"], "sets an argument.*use --seed"),
    "param-n_segments": (["--param", "n_segments=3"], "sets an argument.*use --segments"),
    "param-method": (["--param", "method=ncut"], "use --method"),
    "param-constraints": (["--param", "constraints=c.json"], "use --constraints"),
    "param-max_pixels": (["--param", "max_pixels=10"], "use --max-pixels"),
    "param-no-equals": (["--param", "alpha"], "NAME=VALUE"),
    "param-no-name": (["--param", "=3"], "no name"),
    "param-twice": (["--param", "max_nodes=100", "--param", "max_nodes=200"], "given twice"),
    "param-unknown": (["--param", "colour=red"], "unknown parameter 'colour'"),
    "param-bad-value": (["--param", "max_nodes=lots"], "must be int"),
    "param-bad-bool-choice": (["--param", "representation=both"], "one of"),
    "method-unknown": (["--method", "kmeans"], "valid methods"),
    "unknown-flag": (["--bogus"], "unrecognized arguments"),
    "max-pixels-word": (["--max-pixels", "many"], "invalid int value"),
    "csp-beta-too-high": (["--method", "csp", "--param", "beta=1e12"], "below"),
}


@pytest.mark.parametrize("case", list(CLI))
def test_segment_command(case, tmp_path, capsys):
    args, match = CLI[case]
    expect_cli_error(["segment", "--demo", "--out", tmp_path / "m.png", *args], capsys, match)
    assert not (tmp_path / "m.png").exists()


@pytest.mark.parametrize("args, match", [
    (["segment"], "give an IMAGE or --demo"),
    (["segment", "--demo", "x.png"], "give an IMAGE or --demo"),
    (["methods", "extra"], "unrecognized arguments"),
    (["methods", "--bogus"], "unrecognized arguments"),
    (["--method", "kmeans"], "valid methods"),
    (["--segments", "1"], "at least 2"),
    (["--max-pixels", "-1"], "at least 4"),
    (["--screenshot"], "expected one argument"),
])
def test_other_commands(args, match, capsys):
    expect_cli_error(args, capsys, match)


def test_help_is_not_an_error(capsys):
    r = run_cli(["segment", "--help"], capsys)
    assert r.code == 0 and "--max-pixels" in r.out and r.err == ""


def test_methods_into_a_closed_pipe():
    """``segapp methods | head -c 0``: the reader is gone before anything is written; the
    command ends without a traceback or an "Exception ignored" message."""
    from .helpers import run_subprocess

    r = run_subprocess("import subprocess, sys\n"
                       "p = subprocess.Popen([sys.executable, '-c', 'import sys; from segapp.cli import main; "
                       "sys.exit(main([\"methods\"]))'], stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n"
                       "p.stdout.close()\n"
                       "err = p.stderr.read().decode(); code = p.wait()\n"
                       "print(code); print(repr(err))")
    code, err = r.stdout.splitlines()
    assert code == "2" and err == "''", (code, err)


def test_no_display_is_one_line(monkeypatch, capsys):
    """``segapp IMAGE`` on a Linux machine without a display: one line, not Qt's abort."""
    for k in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    expect_cli_error([], capsys, "no display to open the window on")
