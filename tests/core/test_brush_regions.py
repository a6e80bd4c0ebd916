"""Brush regions (blocks with pixel runs), the creation order of constraints, and the
constraint file's version 2 (version 1 still read)."""

import json
import warnings

import numpy as np
import pytest

from segapp import core
from segapp.core.graph.node_constraints import map_constraints
from segapp.core.graph.representation import build_representation


def _disc_stroke(shape, centres, radius):
    rr, cc = np.mgrid[: shape[0], : shape[1]]
    m = np.zeros(shape, bool)
    for r, c in centres:
        m |= (rr - r) ** 2 + (cc - c) ** 2 <= radius ** 2
    return m


def test_runs_round_trip_through_a_mask():
    m = _disc_stroke((30, 40), [(10, 10), (12, 20), (20, 30)], 4)
    b = core.Block.from_mask(3, m)
    assert b.is_region and b.label == 3
    assert b.n_pixels == int(m.sum())
    full = np.zeros_like(m)
    full[b.top:b.bottom, b.left:b.right] = b.mask()
    assert np.array_equal(full, m)
    assert b.contains(10, 10) and not b.contains(0, 0)


def test_bad_runs_are_refused():
    with pytest.raises(core.ConstraintError, match="c1 must exceed c0"):
        core.Block.from_runs(1, [(3, 5, 5), (4, 0, 6)])
    with pytest.raises(core.ConstraintError, match="outside its box"):
        core.Block(1, 0, 0, 4, 4, runs=((5, 0, 2),))


def test_version_2_round_trip_keeps_regions_and_order(tmp_path):
    region = core.Block.from_mask(2, _disc_stroke((20, 20), [(8, 8)], 3))
    c = core.Constraints([(1, 1, 5, 5)], [(0, 0, 9, 9)], [core.Block(1, 0, 0, 4, 4), region],
                         order={"must_link": [7], "cannot_link": [2], "blocks": [5, 1]})
    assert c.sequence() == [("blocks", 1), ("cannot_link", 0), ("blocks", 0), ("must_link", 0)]
    text = c.to_json(tmp_path / "c.json")
    data = json.loads(text)
    assert data["version"] == 2 and "runs" in data["blocks"][1] and "box" in data["blocks"][0]
    back = core.Constraints.from_json(tmp_path / "c.json")
    assert back == c and back.blocks[1].runs == region.runs
    assert back.sequence() == c.sequence()


def test_version_1_file_is_still_read(tmp_path):
    p = tmp_path / "v1.json"
    p.write_text(json.dumps({"version": 1, "must_link": [[1, 1, 5, 5]], "cannot_link": [],
                             "blocks": [{"label": 2, "box": [0, 0, 4, 4]}]}))
    c = core.Constraints.from_json(p)
    assert c.blocks == (core.Block(2, 0, 0, 4, 4),)
    assert c.sequence() == [("must_link", 0), ("blocks", 0)]  # version 1: kind order
    with pytest.raises(core.ConstraintError, match="unknown key 'runs'"):
        core.Constraints.from_dict({"version": 1, "blocks": [{"label": 1, "box": [0, 0, 2, 2],
                                                              "runs": [[0, 0, 1]]}]})


def test_a_region_maps_to_the_nodes_it_covers_not_its_box():
    img = np.random.RandomState(0).rand(40, 60)
    rep = build_representation(img, "grid", 600, 500_000)
    m = np.eye(40, 60, dtype=bool)  # a diagonal line: its box is the whole image
    b = core.Block.from_mask(1, m)
    want = np.unique(rep.node_of_pixel[m])
    assert np.array_equal(rep.nodes_of_block(b), want)
    assert len(want) < rep.n_nodes // 4
    nc = map_constraints(core.Constraints(blocks=[b]), rep)
    assert set(np.flatnonzero(nc.labels == 0)) == set(want.tolist())


def _three_bands():
    rng = np.random.RandomState(3)
    return np.clip(rng.rand(60, 90) * 0.1 + np.repeat([0.2, 0.8, 0.5], 30)[None, :], 0, 1)


# ncut is the unconstrained baseline: it honours no constraint of any kind by design.
@pytest.mark.parametrize("method", [m for m in core.METHODS if m != "ncut"])
def test_brush_regions_are_honoured_by_every_method(method):
    img = _three_bands()
    # label 1 paints across the first two bands (the image alone would split it), label 2
    # a wavy stroke in the third band
    one = core.Block.from_mask(1, _disc_stroke(img.shape, [(10, 10), (12, 30), (14, 50)], 4))
    two = core.Block.from_mask(2, _disc_stroke(img.shape, [(40, 70), (48, 80)], 3))
    cons = core.Constraints(blocks=[one, two])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", core.SegappWarning)
        seg = core.segment(img, cons, method=method, n_segments=2, max_nodes=200)
    assert seg.honoured["blocks"].tolist() == [True, True]
    lab = seg.labels
    m1, m2 = np.zeros(img.shape, bool), np.zeros(img.shape, bool)
    m1[one.top:one.bottom, one.left:one.right] = one.mask()
    m2[two.top:two.bottom, two.left:two.right] = two.mask()
    assert len(np.unique(lab[m1])) == 1 and len(np.unique(lab[m2])) == 1
    assert lab[m1][0] != lab[m2][0]


@pytest.mark.parametrize("link_is_newest", [True, False])
def test_the_newest_constraint_wins_across_kinds(link_is_newest):
    img = _three_bands()
    blocks = [core.Block(1, 20, 5, 40, 20), core.Block(2, 20, 65, 40, 85)]
    link = [(30, 10, 30, 75)]  # joins the two labelled blocks: contradicts them
    order = {"must_link": [9 if link_is_newest else 0], "blocks": [3, 4]}
    cons = core.Constraints(must_link=link, blocks=blocks, order=order)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", core.SegappWarning)
        seg = core.segment(img, cons, method="csp", n_segments=3, max_nodes=200)
    assert bool(seg.honoured["must_link"][0]) is link_is_newest
    assert bool(seg.honoured["blocks"].all()) is not link_is_newest
