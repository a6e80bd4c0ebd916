"""``rounding_keep_healthy``: a stroke the result on screen already honours never shrinks a
segment to a sliver (:func:`core.constraint_step.stage.healthy_screen_kept`)."""

import warnings

import numpy as np
import pytest

from segapp import core
from segapp.core.constraint_step import stage
from segapp.core.constraint_step.resolve import resolve
from segapp.core.constraint_step.stage import ConstraintStep, healthy_one_call, healthy_screen_kept
from segapp.core.eval import people
from segapp.core.graph.node_constraints import NodeConstraints
from segapp.core.segmentation import adds_must_links_only, adds_strokes_only

from .test_ncut_colouring import _disc_image

KW = dict(n_segments=2, max_nodes=300)


def _three_cliques():
    """Three 4-node cliques (nodes 0-3, 4-7, 8-11) joined by weak edges; node 11 holds one
    pixel, every other node 100."""
    W = np.zeros((12, 12))
    for block in (range(4), range(4, 8), range(8, 12)):
        for a in block:
            for b in block:
                if a != b:
                    W[a, b] = 1.0
    for a, b in ((3, 4), (7, 8)):
        W[a, b] = W[b, a] = 0.05
    sizes = np.full(12, 100.0)
    sizes[11] = 1.0
    return W, (np.zeros((12, 3)), sizes)


SCREEN = np.repeat([0, 1, 2], 4)  # the three cliques: every segment a third of the image
SLIVER = np.array([0] * 4 + [1] * 4 + [1] * 3 + [2])  # segment 2 holds node 11 alone: 0.1%


def _step(previous, keep=True, must=((0, 1), (4, 5), (8, 9)), cannot=((0, 4),)):
    W, appearance = _three_cliques()
    nc = NodeConstraints.from_pairs(len(W), must=list(must), cannot=list(cannot))
    return nc, ConstraintStep(3, nc, graph=W, previous=np.asarray(previous), appearance=appearance,
                              keep_healthy=keep)


def test_a_sliver_does_not_replace_a_screen_that_honours_every_stroke():
    nc, step = _step(SCREEN)
    assert healthy_screen_kept(SLIVER, resolve(nc), step)


def test_labels_without_a_sliver_replace_the_screen():
    nc, step = _step(SCREEN)
    other = np.array([0] * 4 + [1] * 4 + [2] * 4)[::-1]  # every segment a third: shown
    assert not healthy_screen_kept(other, resolve(nc), step)


def test_a_sliver_that_holds_a_stroke_is_shown():
    """A small segment that holds strokes is often a small region a person stroked."""
    nc, step = _step(SCREEN, cannot=((0, 4), (0, 11)))  # node 11 stroked: its segment is held
    assert not healthy_screen_kept(SLIVER, resolve(nc), step)


def test_off_or_a_screen_that_breaks_a_stroke_or_is_a_sliver_itself_is_not_kept():
    nc, step = _step(SCREEN, keep=False)
    assert not healthy_screen_kept(SLIVER, resolve(nc), step)
    nc, step = _step(SCREEN, must=((0, 1), (3, 5), (8, 9)))  # a must-link across the screen's segments
    assert not healthy_screen_kept(SLIVER, resolve(nc), step)
    nc, step = _step(SCREEN, must=((0, 1), (8, 9)), cannot=((4, 5),))  # a cannot-link inside one of its segments
    assert not healthy_screen_kept(SLIVER, resolve(nc), step)
    nc, step = _step(SLIVER, must=((0, 1), (4, 5)), cannot=((0, 4),))  # the screen is a sliver itself
    assert not healthy_screen_kept(SLIVER.copy(), resolve(nc), step)


def test_the_same_strokes_in_one_call_replace_the_screen_where_they_cut_better_and_are_healthy():
    """No lock-in: the screen stays only against one-call labels that are a sliver too or cut
    the graph no better."""
    jagged = np.array([0] * 3 + [1] * 5 + [2] * 4)  # node 3 on the wrong side of the first cut
    nc, step = _step(jagged, must=((0, 1), (8, 9)), cannot=((0, 8),))
    assert healthy_screen_kept(SLIVER, resolve(nc), step)  # node 11's segment, unheld: a sliver
    assert healthy_one_call(SCREEN, resolve(nc), step)  # the cliques cut better: they are shown
    assert not healthy_one_call(SLIVER, resolve(nc), step)  # a sliver in one call too: the screen stays
    nc, step = _step(SCREEN, must=((0, 1), (8, 9)), cannot=((0, 8),))
    assert not healthy_one_call(jagged, resolve(nc), step)  # cuts worse than the screen: the screen stays


# On the disc image: a must-link in the background, one in the disc, then a cannot-link from
# the background to the disc, which the result on screen already honours.
STROKES = [("must_link", (8, 8), (50, 30)), ("must_link", (22, 55), (38, 66)), ("cannot_link", (5, 40), (30, 60))]


def _session(img, strokes, **kw):
    shown, out = None, []
    for r in range(1, len(strokes) + 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            shown = core.segment(img, people.constraints_of(strokes[:r]), method="e2cp", previous=shown, **KW, **kw)
        out.append(shown)
    return out


def test_a_cannot_link_the_screen_honours_is_an_addition_of_strokes():
    img, _ = _disc_image()
    second = _session(img, STROKES[:2])[1]
    honoured = people.constraints_of(STROKES)
    inside = people.constraints_of(STROKES[:2] + [("cannot_link", (5, 40), (50, 30))])  # both ends background
    assert adds_strokes_only(second, honoured, second.asked)
    assert not adds_must_links_only(second, honoured, second.asked)  # not must-links only
    assert not adds_strokes_only(second, inside, second.asked)  # the screen does not honour it
    assert not adds_strokes_only(second, people.constraints_of(STROKES[:2]), second.asked)  # nothing added
    assert not adds_strokes_only(second.labels, honoured, second.asked)


@pytest.mark.parametrize("keep", [True, False])
def test_the_window_keeps_the_screen_where_the_step_would_leave_a_sliver(monkeypatch, keep):
    """The step's labels for the cannot-link made a sliver (forced here: one node alone in the
    disc's segment; in one call the step's own labels, which cut no better than the screen):
    with ``rounding_keep_healthy`` the screen stays, pixels and all; without it the sliver is
    shown."""
    img, _ = _disc_image()
    first, second = _session(img, STROKES[:2])
    real = stage.constrained_labels

    def sliver(*args, **kw):
        labels, resolution = real(*args, **kw)
        if kw.get("previous") is None:  # the same strokes in one call: as they are
            return labels, resolution
        bad = np.zeros_like(labels)
        bad[np.flatnonzero(resolution.group < 0)[:1]] = 1  # one node no stroke holds
        return bad, resolution

    monkeypatch.setattr(stage, "constrained_labels", sliver)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        third = core.segment(img, people.constraints_of(STROKES), method="e2cp", previous=second,
                             rounding_keep_healthy=keep, **KW)
    if keep:
        assert third.info.get("kept_healthy") and third.info.get("kept_screen")
        assert np.array_equal(third.labels, second.labels)
    else:
        assert "kept_healthy" not in third.info
        assert np.bincount(third.labels.ravel(), minlength=2).min() < 0.03 * third.labels.size
