"""With labelled blocks alone, the far field no block reaches goes to the ground
(core/constraint_step/ground.py)."""

import numpy as np
import pytest
import scipy.sparse as sp

from segapp import core
from segapp.core.constraint_step.ground import grounded, reach

from ..conftest import ROOT

GRABCUT = ROOT.parent / "shared" / "grabcut"


def chain(n: int) -> sp.csr_matrix:
    """A path graph 0 - 1 - ... - n-1 with unit weights."""
    i = np.arange(n - 1)
    return sp.csr_matrix((np.ones(2 * (n - 1)), (np.r_[i, i + 1], np.r_[i + 1, i])), shape=(n, n))


def test_reach_is_the_walk_with_its_prior_from_every_seed():
    """Two nodes, one a seed: (d (1 + w) - 0) r = w_01 gives r = 1 / (1 + w); along a chain
    the reach falls with the distance from the seed and is 1 at the seed."""
    w = 0.01
    assert reach(chain(2), np.array([0]), w)[1] == pytest.approx(1.0 / (1.0 + w))
    r = reach(chain(40), np.array([0]), w)
    assert r[0] == 1.0 and np.all(np.diff(r) < 0) and r[-1] < 0.1 < r[5]


def test_the_far_field_goes_to_the_segment_around_the_others():
    """Seeds of segment 1 at one end of a chain, of segment 0 further on; the nodes beyond
    the walk's reach take segment 0 where segment 0 holds the border, and stay where the two
    segments share it."""
    n, w = 80, 0.01
    labels = np.zeros(n, np.int64)
    labels[:10] = 1
    labels[60:] = 1  # the walk's noise far from every seed
    seeds = np.array([0, 20])
    border = np.zeros(n)
    border[[15, 25, 30]] = 5.0  # segment 0's reached nodes hold the border
    out, changed = grounded(labels, chain(n), seeds, border, w, 0.1, 2)
    far = reach(chain(n), seeds, w) < 0.1
    assert far[60:].all() and changed == 20 and (out[far] == 0).all() and (out[~far] == labels[~far]).all()
    border[5] = 5.0  # segment 1 holds a quarter of it: no segment surrounds the other
    assert grounded(labels, chain(n), seeds, border, w, 0.1, 2)[1] == 0
    assert grounded(labels, chain(n), seeds, border * 0, w, 0.1, 2)[1] == 0  # no border reached
    assert grounded(labels, chain(n), seeds, border, w, 0.0, 2)[1] == 0  # rounding_ground 0: off


def _object_image():
    """A bright disc (the object) at the left of a dark field with a far, lighter band at the
    right (a region of the background no click reaches)."""
    h, w = 60, 160
    yy, xx = np.mgrid[:h, :w]
    img = np.full((h, w, 3), 0.2)
    img[(yy - 30) ** 2 + (xx - 30) ** 2 < 15 ** 2] = (0.9, 0.6, 0.5)
    img[:, 120:] = (0.45, 0.45, 0.6)
    return img + np.random.RandomState(0).normal(0, 0.02, img.shape)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("method", ["e2cp", "csp"])
def test_links_and_a_single_label_are_never_grounded(method):
    """The rule reads labelled blocks of every segment alone: with a link among them, or
    blocks of one label, the labels are those without it."""
    img = _object_image()
    blocks = (core.Block(1, 28, 28, 31, 31), core.Block(2, 5, 60, 8, 63))
    for cons in (core.Constraints([(30, 30, 10, 10)], [(30, 30, 50, 80)], blocks),
                 core.Constraints((), (), blocks[:1])):
        on = core.segment(img, cons, method=method, n_segments=2)
        off = core.segment(img, cons, method=method, n_segments=2, rounding_ground=0.0)
        assert "grounded" not in on.info and np.array_equal(on.labels, off.labels)


@pytest.mark.skipif(not GRABCUT.exists(), reason="the GrabCut images are not beside the checkout")
@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("method", ["spectral-learning", "e2cp"])
def test_a_click_on_the_hikers_head_does_not_take_the_sky(method):
    """GrabCut's person3, the field's clicker's first seven clicks (clicks as labelled
    points, the result on screen passed on): the seventh, on the hiker's head, gave the sky,
    the mountain and the far field to the hiker (IoU 0.88 -> 0.17); they lie beyond every
    click's reach and now go to the background, which holds the image's border (0.40).
    ``bench/results/tuning.md``, forty-eighth session."""
    from segapp.core.eval import clicks as C

    item = [i for i in C.find_objects(GRABCUT) if i.id == "person3"][0]
    image = core.load_image(item.image)
    mask = C.load_mask(item.mask, image.shape)
    points = [(324, 238, True), (480, 354, False), (459, 219, True), (380, 92, False), (570, 215, False),
              (303, 200, True), (231, 186, True)]
    ious = {}
    for ground in (0.0, None):
        kw = {} if ground is None else {"rounding_ground": ground}
        seg = None
        for n in range(1, len(points) + 1):
            cons = C.clicks_to_constraints(points[:n], "points")
            seg = core.segment(image, cons, method=method, n_segments=2, previous=seg, **kw)
        ious[ground] = C.iou(C.object_of(seg.labels, points, "points"), mask)
        top = seg.labels[:150]  # the sky and the mountain: background
        obj = np.bincount(seg.labels[mask == 255]).argmax()
        ious[(ground, "sky")] = float(np.mean(top == obj))
    assert ious[0.0] < 0.25 and ious[None] > 0.35
    assert ious[(0.0, "sky")] > 0.9 and ious[(None, "sky")] < 0.1
