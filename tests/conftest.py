import os
import sys
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
BSDS = ROOT.parent / "shared" / "bsds500"


@pytest.fixture
def rng():
    return np.random.RandomState(0)


def gaussian_1d(x, sigma):
    x = np.asarray(x, float)
    return np.exp(-(x[:, None] - x[None, :]) ** 2 / (2 * sigma ** 2))
