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


def training_image(image_id: str, k: int):
    """A BSDS500 training image and its K-region target (``segapp.core.eval.simulate``),
    or the test skipped where the images are not beside the checkout."""
    from segapp import core
    from segapp.core.eval import bsds, simulate

    items = [i for i in bsds.find_images(BSDS, "train") if i.id == image_id] if BSDS.exists() else []
    if not items:
        pytest.skip("the BSDS500 images are not beside the checkout")
    image = core.load_image(items[0].image)
    return image, simulate.make_target(bsds.load_ground_truth(items[0].ground_truth, shape=image.shape[:2]), k)
