import os
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
BSDS = ROOT.parent / "shared" / "bsds500"


@pytest.fixture
def rng():
    return np.random.RandomState(0)

