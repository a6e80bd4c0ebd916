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


def window_sequence(image, target, image_id: str, method: str, k: int, user: str = "regions-first"):
    """The people-like ``user``'s strokes on a training image drawn one at a time, the
    result on screen passed on as the window does: yields ``(stroke number, constraints,
    segmentation)`` after each stroke (warnings silenced)."""
    import warnings

    from segapp import core
    from segapp.core.eval import people

    strokes = people.user_strokes(user, target, k, image_id)
    seg = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(1, len(strokes) + 1):
            cons = people.constraints_of(strokes[:r])
            seg = core.segment(image, cons, method=method, n_segments=k, previous=seg)
            yield r, cons, seg


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
