"""``segapp IMAGE --screenshot OUT.png``: the window, segmented, as a picture; bad output paths
are one line and exit status 2."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from PIL import Image

from segapp.resources import DEMO_IMAGE

ROOT = Path(__file__).resolve().parents[2]
APP = "import sys; from segapp.cli import main; sys.exit(main())"


def _run(tmp_path, *args, **more_env):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(tmp_path / "c"),
           "XDG_DATA_HOME": str(tmp_path / "d"), "PYTHONPATH": str(ROOT), **more_env}
    return subprocess.run([sys.executable, "-c", APP, *map(str, args)], env=env, capture_output=True, text=True,
                          timeout=300)


def test_screenshot_shows_the_segmented_image(tmp_path):
    out = tmp_path / "shot.png"
    r = _run(tmp_path, DEMO_IMAGE, "--screenshot", out)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(out)
    shot = np.asarray(Image.open(out).convert("RGB")).astype(int)
    assert shot.shape[1] >= 600
    demo = np.asarray(Image.open(DEMO_IMAGE).convert("RGB")).astype(int)
    # the overlay tints the image: no pixel of the shot shows the demo's corner colour untinted
    assert not (np.abs(shot - demo[5, 5]).sum(axis=2) == 0).any()


def test_screenshot_into_a_missing_folder_is_one_line_and_exit_2(tmp_path):
    for out in (tmp_path / "missing" / "shot.png", tmp_path):
        r = _run(tmp_path, DEMO_IMAGE, "--screenshot", out)
        assert r.returncode == 2
        assert r.stderr.strip().count("\n") == 0 and r.stderr.startswith("segapp: error: cannot write ")


def test_screenshot_touches_no_settings(tmp_path):
    """A headless screenshot leaves the user's recent files, last folder, method and K as
    they were (issue "A newcomer's first hour")."""
    conf = tmp_path / "c" / "segapp" / "segapp.conf"
    conf.parent.mkdir(parents=True)
    text = "[General]\nmethod=rom\nn_segments=4\nlast_folder=/somewhere\nrecent=/x/a.png\n"
    conf.write_text(text)
    temp = tmp_path / "temp"  # the settings it uses instead go to a temporary folder, removed at exit
    temp.mkdir()
    r = _run(tmp_path, DEMO_IMAGE, "--screenshot", tmp_path / "shot.png", "--method", "e2cp", "--segments", "3",
             TMPDIR=str(temp))
    assert r.returncode == 0, r.stderr
    assert conf.read_text() == text
    assert not [p.name for p in temp.iterdir() if p.name.startswith("segapp-screenshot-settings-")]


def test_param_sets_the_form_and_a_bad_one_is_one_line(tmp_path):
    r = _run(tmp_path, DEMO_IMAGE, "--screenshot", tmp_path / "s.png", "--param", "bogus=1")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "rounding_colouring" in r.stderr
    r = _run(tmp_path, DEMO_IMAGE, "--screenshot", tmp_path / "s.png", "--param", "rounding_colouring=ncut")
    assert r.returncode == 0, r.stderr
