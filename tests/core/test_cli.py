"""The headless command line."""

import json

import numpy as np
import pytest
from PIL import Image

from segapp.cli import main


def test_segment_writes_label_png_equal_to_result(tmp_path, capsys):
    from segapp import core

    img = (np.random.RandomState(0).rand(30, 40, 3) * 255).astype(np.uint8)
    Image.fromarray(img).save(tmp_path / "x.png")
    cons = tmp_path / "c.json"
    cons.write_text(json.dumps({"version": 1, "must_link": [[2, 2, 27, 37]], "cannot_link": [], "blocks": []}))
    out, eig = tmp_path / "m.png", tmp_path / "e.png"
    rc = main(["segment", str(tmp_path / "x.png"), "--constraints", str(cons), "--method", "e2cp",
               "--segments", "3", "--out", str(out), "--eigenvectors", str(eig), "--param", "alpha=0.7"])
    assert rc == 0
    mask = np.asarray(Image.open(out))
    assert mask.shape == (30, 40) and mask.dtype == np.uint8
    seg = core.segment(img, core.Constraints.from_json(cons), method="e2cp", n_segments=3, alpha=0.7)
    assert np.array_equal(mask, seg.labels)
    strip = np.asarray(Image.open(eig))
    from segapp.core.render import CAPTION_PX

    assert strip.shape[0] == 30 + CAPTION_PX and strip.shape[1] >= 3 * 40
    for k in range(3):  # every panel captioned ("vector k ... eigenvalue ..."), dark text on white
        assert (strip[30:, k * 44:k * 44 + 40] < 100).any()


def test_demo_and_methods(tmp_path, capsys):
    assert main(["segment", "--demo", "--out", str(tmp_path / "d.png"), "--method", "ncut"]) == 0
    assert Image.open(tmp_path / "d.png").size == (360, 240)
    assert main(["methods"]) == 0
    out = capsys.readouterr().out
    for name in ("ncut", "csp", "beta", "epsilon_m", "n_neighbors", "representation"):
        assert name in out


@pytest.mark.parametrize("args, match", [
    (["segment", "nope.png"], "not found"),
    (["segment", "--demo", "--method", "x"], "valid methods"),
    (["segment", "--demo", "--param", "alpha"], "NAME=VALUE"),
    (["segment", "--demo", "--segments", "1"], ">= 2"),
    (["segment", "--demo", "--method", "csp", "--param", "beta=1e12"], "below"),
])
def test_errors_are_one_line_exit_2(args, match, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("segapp: error:")
    import re

    assert re.search(match, err)


def test_contradiction_is_an_error_on_the_cli(tmp_path, capsys):
    c = tmp_path / "c.json"
    c.write_text(json.dumps({"must_link": [[5, 5, 50, 50]], "cannot_link": [[5, 5, 50, 50]]}))
    assert main(["segment", "--demo", "--constraints", str(c)]) == 2
    assert "contradictory" in capsys.readouterr().err
