"""The run-time files in segapp/assets are what the scripts in assets/ make, and they load."""

import runpy

import numpy as np
import pytest
from PIL import Image

from segapp import resources

from tests.conftest import ROOT


def _script(name):
    return runpy.run_path(str(ROOT / "assets" / name))  # as a module: its __main__ block does not run


def test_demo_image_is_what_make_demo_makes():
    made = _script("make_demo.py")["make"]()
    assert np.array_equal(np.asarray(Image.open(resources.DEMO_IMAGE)), made)


@pytest.mark.parametrize("size", resources.ICON_SIZES)
def test_icon_is_what_make_icon_draws(size):
    script = _script("make_icon.py")
    assert tuple(script["SIZES"]) == resources.ICON_SIZES
    icon = np.asarray(Image.open(resources.ICON_FILES[size]))
    assert icon.shape == (size, size, 4)
    assert np.array_equal(icon, script["draw"](size))
    # readable: an opaque tile with transparent rounded corners, green and red links drawn on it
    assert icon[size // 2, size // 2, 3] == 255 and icon[0, 0, 3] == 0
    rgb = icon[..., :3].reshape(-1, 3).astype(int)
    for colour in (script["GREEN"], script["RED"]):
        assert (np.abs(rgb - colour).sum(axis=1) < 30).sum() >= 2
