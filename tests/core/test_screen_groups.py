"""Must-links drawn inside the screen's segments stay with the strokes there
(core/constraint_step/regroup.py, ``rounding_screen_groups``)."""

import warnings

import numpy as np
import pytest

from segapp import core
from segapp.core.constraint_step.regroup import screen_joins
from segapp.core.constraint_step.resolve import resolve
from segapp.core.eval import metrics, people, simulate
from segapp.core.graph.node_constraints import NodeConstraints as NC

from .test_ncut_colouring import CONSTRAINED
from .test_widen import _image_and_target

SCREEN = np.repeat([0, 1, 2], 4)  # nodes 0-3 in segment 0, 4-7 in 1, 8-11 in 2


def test_a_must_link_inside_a_segment_joins_the_group_there():
    nc = NC.from_pairs(12, must=[(0, 1), (4, 5), (8, 9), (2, 3)])
    joins = screen_joins(SCREEN, nc, 3)
    assert len(joins) == 1
    g = resolve(_joined(nc, joins)).group
    assert g[2] == g[0] and len({g[0], g[4], g[8]}) == 3


def _joined(nc, joins):
    from dataclasses import replace

    return replace(nc, screen_joins=joins)


def test_no_join_before_the_strokes_hold_every_segment():
    """Two groups for three segments: the third segment is still the method's, and a
    must-link inside another region's segment may be a region of its own (147062)."""
    assert screen_joins(SCREEN, NC.from_pairs(12, must=[(0, 1), (4, 5), (2, 3)]), 3) == []


def test_a_stroke_that_says_otherwise_wins_over_the_join():
    """A cannot-link between the two groups: the join, below every stroke, is not made."""
    nc = NC.from_pairs(12, must=[(0, 1), (4, 5), (8, 9), (2, 3)], cannot=[(1, 3)])
    joins = [(2, 0)]
    g = resolve(_joined(nc, joins)).group
    assert g[2] != g[0]


def _replay(image, strokes, method, **kw):
    shown, out = None, []
    for r in range(1, len(strokes) + 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            shown = core.segment(image, people.constraints_of(strokes[:r]), method=method, n_segments=3,
                                 previous=shown, **kw)
        out.append(shown)
    return out


@pytest.mark.parametrize("method", CONSTRAINED)
def test_a_second_must_link_in_the_sky_keeps_the_fish(method):
    """135069 (an eagle and a fish in the sky, K = 3), the regions-first user's first four
    strokes in the window's order: must-links in the sky, the eagle and the fish (0.4% of
    the image), then a second one in the sky. After the third the screen is right (ARI
    0.95); the fourth, inside the sky's segment, regrouped every stroke and put the fish
    with the eagle and half the sky apart (0.16, every method) before the step."""
    image, target = _image_and_target("135069")
    care = target != simulate.DONT_CARE
    strokes = people.user_strokes("regions-first", target, 3)[:4]
    third, fourth = _replay(image, strokes, method)[2:]
    ari = [metrics.adjusted_rand(target[care], s.labels[care]) for s in (third, fourth)]
    assert ari[0] > 0.9 and ari[1] > 0.9, ari
    assert fourth.info.get("screen_groups") == 1
    for kind, p, q in strokes:
        assert fourth.labels[p] == fourth.labels[q]


def test_without_the_step_the_fourth_stroke_regroups():
    image, target = _image_and_target("135069")
    care = target != simulate.DONT_CARE
    strokes = people.user_strokes("regions-first", target, 3)[:4]
    fourth = _replay(image, strokes, "e2cp", rounding_screen_groups=False)[-1]
    assert metrics.adjusted_rand(target[care], fourth.labels[care]) < 0.5
    assert "screen_groups" not in fourth.info


def test_the_edits_must_link_across_two_segments_joins_the_one_placement_gives():
    """A must-link whose ends lie in two segments on screen, once the older ones hold every
    segment: joined to the older group of the segment ``place`` names; without ``place``
    (or before the older strokes hold every segment) it is not joined."""
    nc = NC.from_pairs(12, must=[(0, 1), (4, 5), (8, 9), (2, 6)])
    asked = []

    def place(colour, res, g):
        asked.append(colour.tolist())
        return 1

    joins = screen_joins(SCREEN, nc, 3, place=place)
    g = resolve(_joined(nc, joins)).group
    assert g[2] == g[6] == g[4] and len({g[0], g[4], g[8]}) == 3
    assert sorted(asked[0]) == [-1, 0, 1, 2]  # the new group unknown, each older one its segment
    assert screen_joins(SCREEN, nc, 3) == []
    early = NC.from_pairs(12, must=[(0, 1), (4, 5), (2, 6)])
    assert screen_joins(SCREEN, early, 3, place=place) == []


def test_a_must_link_left_alone_in_a_sliver_is_placed_with_its_region():
    """187039 (a tiger between trees and grass, K = 3), the regions-first user's six
    must-links in the window: the sixth, on the tiger's leg, has its ends in two segments
    on screen; the step made it a segment of its own of 1.3% of the image and put the
    tiger's first must-link with the grass (ARI 0.71, a collapsed result). Placed with the
    screen's groups, both tiger strokes share a segment and no segment is under 3%."""
    image, target = _image_and_target("187039")
    care = target != simulate.DONT_CARE
    strokes = people.user_strokes("regions-first", target, 3)[:6]
    sixth = _replay(image, strokes, "e2cp")[-1]
    assert sixth.info.get("screen_placed") is True
    share = np.bincount(sixth.labels.ravel(), minlength=3) / sixth.labels.size
    assert share.min() > 0.03, share
    tiger = [(p, q) for kind, p, q in strokes if target[p] == target[strokes[2][1]]]
    assert len(tiger) == 2 and sixth.labels[tiger[0][0]] == sixth.labels[tiger[1][0]]
    assert metrics.adjusted_rand(target[care], sixth.labels[care]) > 0.75
    for kind, p, q in strokes:
        assert sixth.labels[p] == sixth.labels[q]


def test_a_cannot_link_in_the_edit_is_not_placed():
    """The placement reads edits that only add must-links: with a cannot-link added the
    screen is not read (``adds_must_links_to_honoured`` is False)."""
    from segapp.core.constraints import Constraints
    from segapp.core.segmentation import adds_must_links_to_honoured

    image = np.zeros((40, 40, 3))
    image[:, 20:] = 1.0
    had = Constraints(must_link=[(5, 5, 30, 5, 1.0)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        shown = core.segment(image, had, method="e2cp", n_segments=2)
    more_ml = Constraints(must_link=[(5, 5, 30, 5, 1.0), (5, 30, 30, 30, 1.0)])
    more_cl = Constraints(must_link=[(5, 5, 30, 5, 1.0)], cannot_link=[(5, 5, 5, 30, 1.0)])
    assert adds_must_links_to_honoured(shown, more_ml, shown.asked)
    assert not adds_must_links_to_honoured(shown, more_cl, shown.asked)
