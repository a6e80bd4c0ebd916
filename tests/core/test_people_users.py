"""People-like simulated users (core.eval.people): correct strokes, and the health figures."""

import numpy as np
import pytest

from segapp.core.constraints import Constraints
from segapp.core.errors import SegappError
from segapp.core.eval import people


def _target():
    t = np.zeros((60, 90), np.int32)
    t[:, 40:] = 1
    t[40:, 70:] = 2
    return t


@pytest.mark.parametrize("k, n", [(2, 5), (3, 9)])
def test_regions_first_draws_correct_strokes(k, n):
    t = _target()
    strokes = people.region_strokes(t, k)
    assert len(strokes) == n == 2 * k + k * (k - 1) // 2
    kinds = [s[0] for s in strokes]
    assert kinds == ["must_link"] * (2 * k) + ["cannot_link"] * (k * (k - 1) // 2)  # regions first
    for kind, p, q in strokes:
        same = t[p] == t[q]
        assert same if kind == "must_link" else not same
    for kind, p, q in strokes[:k]:  # far apart: more than half the region's extent
        rows, cols = np.nonzero(t == t[p])
        assert np.hypot(p[0] - q[0], p[1] - q[1]) > 0.5 * np.hypot(np.ptp(rows), np.ptp(cols))


def test_a_missing_region_gets_no_stroke():
    """A target of two regions asked at K = 3: the user strokes the two it has, every stroke
    correct (before, the missing region's 'points' were drawn anywhere in the image: a
    must-link from corner to corner across both regions)."""
    t = _target()
    t[t == 2] = 1
    strokes = people.region_strokes(t, 3)
    assert len(strokes) == 2 * 2 + 1
    with pytest.raises(SegappError, match="no pixel"):
        people.region_points(t == 2)
    for kind, p, q in strokes:
        same = t[p] == t[q]
        assert same if kind == "must_link" else not same


def test_stroke_ends_deep_inside_the_region():
    t = _target()
    for g in range(3):
        for r, c in people.region_points(t == g):
            assert t[r, c] == g
            assert t[max(r - 2, 0):r + 3, max(c - 2, 0):c + 3].min() == g  # not on the border


def test_shuffled_and_must_links_only():
    t = _target()
    base = people.user_strokes("regions-first", t, 3)
    sh = people.user_strokes("shuffled", t, 3, "img1")
    assert sorted(sh) == sorted(base) and sh != base
    assert sh == people.user_strokes("shuffled", t, 3, "img1")  # seeded by the image
    ml = people.user_strokes("must-links", t, 3)
    assert ml == [s for s in base if s[0] == "must_link"]
    with pytest.raises(SegappError, match="regions-first"):
        people.user_strokes("error-centre", t, 3)


@pytest.mark.parametrize("k", [2, 3])
def test_regions_in_turn_finishes_one_region_before_the_next(k):
    """The same strokes as regions-first, both must-links of the largest region first, then
    both of the next, then the cannot-links: its second stroke is a second must-link group in
    the region of the first (the issue's 100075 sequence: head -> back, then belly -> cub)."""
    t = _target()
    base = people.user_strokes("regions-first", t, k)
    turn = people.user_strokes("regions-in-turn", t, k)
    assert sorted(turn) == sorted(base)
    assert turn[:2] == [base[0], base[k]] and turn[2:4] == [base[1], base[k + 1]]
    assert turn[2 * k:] == base[2 * k:]  # the cannot-links last, as drawn by regions-first
    regions = [int(t[p]) for kind, p, q in turn if kind == "must_link"]
    assert regions == sorted(regions) and regions[0] == regions[1]


def test_draw_adds_one_stroke_per_round():
    t = _target()
    strokes = people.region_strokes(t, 2)
    seen = list(people.draw(strokes, lambda c: np.zeros(t.shape, int)))
    assert [len(r["constraints"]) for r in seen] == list(range(6))
    assert seen[5]["added"] == {"must_link": 0, "cannot_link": 1, "blocks": 0}
    assert seen[5]["constraints"].sequence()[-1] == ("cannot_link", 0)  # newest last


def test_health_sees_collapse_and_blob_cannot_links():
    t = _target()
    good = t.copy()
    blob = np.zeros_like(t)
    blob[28:32, 60:64] = 1  # 16 pixels of 5400: a blob around the cannot-link's end
    cons = Constraints((), [(30, 10, 30, 62)])
    assert people.health(good, t, cons, 3) == {"collapsed": 0.0, "blob_cannot": 0, "n_cannot": 1}
    h = people.health(blob, t, cons, 2)
    assert h["collapsed"] == 1.0 and h["blob_cannot"] == 1
    tiny = t.copy()  # a target whose region 2 is under 10%: a small segment is no collapse
    tiny[tiny == 2] = 1
    tiny[:3, :3] = 2
    assert people.health(tiny, tiny, Constraints(), 3)["collapsed"] == 0.0


def test_harmful_counts_falls_over_the_margin():
    assert people.harmful([0.2, 0.5, 0.44, 0.46, 0.30]) == 2
    assert people.harmful([0.2, 0.3]) == 0
