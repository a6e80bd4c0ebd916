"""Where the next stroke would help most (core.suggest), and the simulated users who follow
the suggestions or click at random inside the error (segapp evaluate --user)."""

import csv
import warnings

import numpy as np
import pytest

from segapp import core
from segapp.core import suggestion as S
from segapp.core.eval import clicks, simulate

from ..helpers import make_bsds

H, W = 48, 64


def _three_bands(noise=0.03):
    """Three vertical bands of different colours; truth 0 / 1 / 2."""
    rng = np.random.RandomState(0)
    cols = np.arange(W) * 3 // W
    colours = np.array([[0.8, 0.2, 0.2], [0.2, 0.7, 0.3], [0.2, 0.3, 0.8]])
    img = colours[cols][None].repeat(H, 0) + noise * rng.randn(H, W, 3)
    return np.clip(img, 0, 1), np.broadcast_to(cols[None], (H, W)).astype(np.int32)


def _segment(img, cons=None, k=3, method="e2cp"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return core.segment(img, cons, method=method, n_segments=k, representation="grid", max_nodes=48)


def _one_stroke_per_band(bands=(0, 1, 2)):
    """A must-link down the middle of each band in ``bands``, its ends in rows 2 and 45."""
    mid = {0: 10, 1: 32, 2: 53}
    return core.Constraints([(2, mid[b], 45, mid[b], 1.0) for b in bands], [])


def test_the_suggestion_is_where_the_other_methods_disagree():
    img, truth = _three_bands()
    cons = _one_stroke_per_band()  # every segment reached: the disagreement decides
    seg = _segment(img, cons)
    other = seg.labels.copy()
    other[8:40, 2:18] = (other[8:40, 2:18] + 1) % 3  # another method puts this block elsewhere
    best = core.suggest(seg, cons, others=[other, other])[0]
    r, c = best.point
    assert 8 <= r < 40 and 2 <= c < 18  # inside the disputed block
    assert len(best.anchors) == 3 and all(a is not None for a in best.anchors)
    assert all(not (8 <= a[0] < 40 and 2 <= a[1] < 18) for a in best.anchors)  # anchors outside it


def test_a_segment_no_stroke_has_reached_is_asked_about_first():
    # a wide band stroked in one corner (far from its stroke it is uncertain, over more
    # pixels than the whole third band), a narrow band stroked, a narrow band no stroke has
    # reached: what that one stands for is the least certain thing, so it is asked first
    rng = np.random.RandomState(0)
    cols = np.digitize(np.arange(W), [48, 56])
    colours = np.array([[0.8, 0.2, 0.2], [0.2, 0.7, 0.3], [0.2, 0.3, 0.8]])
    img = np.clip(colours[cols][None].repeat(H, 0) + 0.1 * rng.randn(H, W, 3), 0, 1)
    cons = core.Constraints([(2, 2, 12, 2, 1.0), (2, 52, 45, 52, 1.0)], [])
    seg = _segment(img, cons)
    assert np.bincount(seg.labels.ravel()).min() > 300  # three segments, one per band
    best = core.suggest(seg, cons)[0]
    assert cols[best.point[1]] == 2 and seg.labels[best.point] == best.segment
    # once every segment is reached, the uncertain regions decide again: the far side of
    # the wide band
    cons = core.Constraints([(2, 2, 12, 2, 1.0), (2, 52, 45, 52, 1.0), (2, 60, 45, 60, 1.0)], [])
    seg = _segment(img, cons)
    assert cols[core.suggest(seg, cons)[0].point[1]] == 0


def test_before_any_stroke_the_figure_is_asked_about_before_its_ground():
    # a square in the middle of a larger background: both segments unreached; the one that
    # holds none of the image's border (the figure) is asked first, though it is smaller
    rng = np.random.RandomState(0)
    inside = np.zeros((H, W), bool)
    inside[14:34, 20:44] = True
    img = np.where(inside[..., None], [0.8, 0.3, 0.2], [0.2, 0.4, 0.7]) + 0.05 * rng.randn(H, W, 3)
    seg = _segment(np.clip(img, 0, 1), k=2)
    assert np.bincount(seg.labels[inside]).max() == inside.sum() < (~inside).sum()
    best = core.suggest(seg)[0]
    assert inside[best.point] and seg.labels[best.point] == best.segment


def test_without_strokes_or_others_it_still_suggests_and_excludes_what_was_asked():
    img, _ = _three_bands(noise=0.2)
    seg = _segment(img)
    first = core.suggest(seg, n_suggestions=3)
    assert first and all(0 <= s.point[0] < H and 0 <= s.point[1] < W for s in first)
    # no stroke has reached any band: each segment is asked about once, the middle band (the
    # least of the image's border) first, before any uncertain region
    assert len({s.segment for s in first}) == 3
    assert first[0].point[1] * 3 // W == 1
    later = core.suggest(seg, n_suggestions=6)[3:]
    assert [s.score for s in later] == sorted((s.score for s in later), reverse=True)
    again = core.suggest(seg, n_suggestions=3, exclude=[first[0].point])
    assert all(first[0].point != s.point for s in again)
    with pytest.raises(core.ParameterError, match="n_suggestions"):
        core.suggest(seg, n_suggestions=0)


def test_a_stroke_makes_its_surroundings_certain(monkeypatch):
    img, _ = _three_bands(noise=0.2)
    seg = _segment(img)
    cons = core.Constraints(must_link=[(24, 5, 24, 15)])
    seg2 = _segment(img, cons)
    rep, _, _ = S.node_level(seg2)
    near = rep.node_at(24, 10)
    c0 = S.certainty(seg, core.Constraints())
    assert S.certainty(seg2, cons)[near] > 0.8  # with the looks, learnt from noisy bands
    monkeypatch.setattr(S, "LOOKS_WEIGHT", 0.0)  # the strokes' and the method's terms alone
    c1 = S.certainty(seg2, cons)
    assert c1[near] > c0[rep.node_at(24, 10)] - 1e-9 and c1[near] > 0.5


def test_the_looks_doubt_a_part_coloured_like_another_segment():
    # 40 red nodes and 40 blue ones; five red nodes labelled with the blue segment and not
    # sure by the strokes (left out of the histograms, as the suggestion leaves them out)
    from types import SimpleNamespace

    colors = np.array([[0.9, 0.1, 0.1]] * 40 + [[0.1, 0.1, 0.9]] * 40)
    rep = SimpleNamespace(colors=colors, sizes=np.full(80, 10.0))
    labels = np.array([0] * 35 + [1] * 45)
    owner = labels.copy()
    owner[35:40] = -1
    c = S.looks_certainty(rep, labels, 2, owner)
    assert (c[35:40] < -0.9).all()  # red in the blue segment: doubted
    assert (c[:35] > 0.9).all() and (c[40:] > 0.9).all()  # the rest: sure
    c_all = S.looks_certainty(rep, labels, 2)  # counted over every node, the red ones still lean red
    assert (c_all[35:40] < 0).all()


def test_the_texture_doubts_a_part_textured_like_another_segment_where_colour_cannot():
    # flat grey on the left, fine stripes of the same mean grey on the right; a corner of
    # the stripes labelled with the flat segment and not sure by the strokes
    from segapp.core.constraint_step.texture import cached_pixel_texture, node_texture

    img = np.full((H, W, 3), 0.5)
    img[:, 32::2] = 0.2
    img[:, 33::2] = 0.8
    seg = _segment(img, k=2)
    rep, _, _ = S.node_level(seg)
    F = node_texture(cached_pixel_texture(rep), rep.node_map.ravel(), rep.n_nodes)
    rr, cc = np.nonzero(np.ones(rep.node_map.shape, bool))
    n = rep.n_nodes
    count = np.bincount(rep.node_map.ravel(), minlength=n)
    col = np.bincount(rep.node_map.ravel(), weights=cc, minlength=n) / count * rep.factor
    row = np.bincount(rep.node_map.ravel(), weights=rr, minlength=n) / count * rep.factor
    labels = (col >= 32).astype(np.int64)
    wrong = (col >= 40) & (row < 16)
    labels[wrong] = 0
    owner = labels.copy()
    owner[wrong] = -1
    texture = S.texture_certainty(F, labels, 2, owner, rep.sizes)
    assert wrong.sum() >= 3 and (texture[wrong] < -0.5).all()
    assert np.median(texture[~wrong]) > 0.5
    assert np.allclose(S.looks_certainty(rep, labels, 2, owner)[wrong], 0, atol=0.05)  # same mean colour
    assert S.texture_certainty(None, labels, 2, owner) is None  # no texture model: colour alone


def test_the_result_carries_the_texture_of_the_nodes_the_suggestion_reads_also_where_strokes_split_them():
    # dark left of column 33, light right; a must-link and a cannot-link end in one grid
    # cell on either side of the edge, so the step splits that cell (tests/core/test_refine.py)
    img = np.full((60, 60, 3), 0.2)
    img[:, 33:] = 0.8
    cons = core.Constraints(must_link=[(20, 31, 20, 5)], cannot_link=[(20, 40, 20, 5)],
                            order={"must_link": [0], "cannot_link": [1]})
    kw = dict(method="e2cp", n_segments=2, representation="grid", max_nodes=16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seg = core.segment(img, cons, **kw)
        plain = core.segment(img, cons, rounding_texture=0.0, **kw)
    rep, _, _ = S.node_level(seg)
    assert seg.info["split_nodes"] == 1
    assert seg.node_texture is not None and seg.node_texture.shape[0] == rep.n_nodes == 17
    assert plain.node_texture is None  # no texture model in the step: the suggestion reads colour alone
    assert len(core.suggest(seg, cons)) == 1 and len(core.suggest(plain, cons)) == 1


def test_the_certainty_doubts_what_looks_like_another_segment(monkeypatch):
    # the looks' share is part of the certainty: switched off, a node whose colour belongs
    # to another segment's sure nodes is no less certain than with it
    img, _ = _three_bands(noise=0.03)
    cons = _one_stroke_per_band()
    seg = _segment(img, cons)
    rep, labels, emb = S.node_level(seg)
    wrong = labels.copy()
    rows = np.bincount(rep.node_map.ravel(), weights=np.nonzero(np.ones(rep.node_map.shape, bool))[0],
                       minlength=rep.n_nodes) / np.bincount(rep.node_map.ravel(), minlength=rep.n_nodes) * rep.factor
    flip = np.flatnonzero((labels == 0) & (rows > 16) & (rows < 32))[:3]  # away from the stroke ends
    wrong[flip] = 1  # red nodes shown in the green segment
    fake = type("Seg", (), {})()
    fake.params, fake.refinement, fake.representation = seg.params, None, rep
    fake.node_labels, fake.node_embedding, fake.node_texture = wrong, emb, None
    with_looks = S.certainty(fake, cons)
    monkeypatch.setattr(S, "LOOKS_WEIGHT", 0.0)
    without = S.certainty(fake, cons)
    assert len(flip) == 3 and (with_looks[flip] < without[flip] - 0.02).all()


def test_inner_is_the_geodesic_distance_from_the_border_and_strokes_with_edges_as_distance():
    # a 7 x 7 grid of nodes: uniform weights give the centre the largest distance from the
    # border; a weak ring around the centre makes its inside farther still
    import scipy.sparse as sp

    n = 7
    idx = np.arange(n * n).reshape(n, n)
    pairs = [(idx[r, c], idx[r, c + 1]) for r in range(n) for c in range(n - 1)] + \
            [(idx[r, c], idx[r + 1, c]) for r in range(n - 1) for c in range(n)]
    a, b = np.array(pairs).T
    border = np.unique(np.concatenate([idx[0], idx[-1], idx[:, 0], idx[:, -1]]))

    def graph(w):
        return sp.coo_matrix((np.r_[w, w], (np.r_[a, b], np.r_[b, a])), shape=(n * n, n * n)).tocsr()

    flat = S._inner(graph(np.full(len(a), 0.5)), border)
    assert flat.reshape(n, n).argmax() == idx[3, 3] and np.allclose(flat[border], 0)
    crossing = np.isin(a, idx[2:5, 2:5].ravel()) ^ np.isin(b, idx[2:5, 2:5].ravel())
    w = np.where(crossing, 0.01, 1.0)  # strong edges inside and outside, a weak ring between
    ring = S._inner(graph(w), border)
    assert ring[idx[3, 3]] > flat[idx[3, 3]] and ring[idx[2, 2]] > 5 * ring[idx[1, 1]]
    seeded = S._inner(graph(np.full(len(a), 0.5)), np.r_[border, idx[3, 3]])
    assert seeded[idx[3, 3]] == 0 and seeded.max() < flat.max()  # a stroked node is a source too


def test_from_boundary_counts_graph_steps_to_the_nearest_node_beside_another_segment():
    import scipy.sparse as sp

    # a chain 0 - 1 - ... - 7, segments 0 0 0 0 0 1 1 1: nodes 4 and 5 are on the boundary
    a = np.arange(7)
    W = sp.coo_matrix((np.ones(14), (np.r_[a, a + 1], np.r_[a + 1, a])), shape=(8, 8))
    labels = np.array([0, 0, 0, 0, 0, 1, 1, 1])
    assert S.from_boundary(W, labels).tolist() == [4, 3, 2, 1, 0, 0, 1, 2]
    assert np.isinf(S.from_boundary(W, np.zeros(8, int))).all()


def test_the_certainty_doubts_the_boundary_more_than_the_inside(monkeypatch):
    # the boundary term lowers the certainty of nodes on the segments' boundary and raises
    # it deep inside them, by BOUNDARY_WEIGHT times (log(1 + hops) - log 2)
    from segapp.core.graph_setup import boundary_graph

    img, _ = _three_bands(noise=0.03)
    cons = _one_stroke_per_band()
    seg = _segment(img, cons)
    rep, labels, _ = S.node_level(seg)
    hops = S.from_boundary(boundary_graph(rep, seg.params), labels)
    with_term = S.certainty(seg, cons)
    monkeypatch.setattr(S, "BOUNDARY_WEIGHT", 0.0)
    without = S.certainty(seg, cons)
    on, inside = hops == 0, hops >= 2
    assert on.any() and inside.any()
    free = (without > -1 + 0.1) & (without < 1 - 0.2)  # away from the clip
    assert (with_term[on & free] < without[on & free]).all()
    assert (with_term[inside & free] > without[inside & free]).all()


@pytest.mark.parametrize("others", [False, True])
def test_the_follower_draws_correct_strokes_only(others):
    img, truth = _three_bands(noise=0.15)
    target = truth.copy()
    cons, asked, seg = core.Constraints(), [], None
    for _ in range(4):
        seg = _segment(img, cons)
        committee = [_segment(img, cons, method=m).labels for m in ("csp", "rom")] if others else ()
        click = simulate.suggestion_click(seg, cons, target, asked, committee)
        if click is None:
            break
        cons = simulate.add_round(cons, click, "strokes", target.shape, target)
    for r1, c1, r2, c2, _w in cons.must_link:
        assert target[r1, c1] == target[r2, c2]
    for r1, c1, r2, c2, _w in cons.cannot_link:
        assert target[r1, c1] != target[r2, c2]
    assert len(cons.must_link) + len(cons.cannot_link) > 0


def test_the_random_user_clicks_inside_the_largest_error():
    pred = np.zeros((H, W), np.int32)
    target = np.zeros((H, W), np.int32)
    target[:, 40:] = 1  # the right part is wrong in pred
    target[:4, :4] = 1  # a small wrong corner too
    rng = np.random.RandomState(0)
    for _ in range(5):
        p, g, hp, gp = simulate.next_click(pred, target, rng=rng)
        assert p[1] >= 40 and g == 1
    mask = np.where(target == 1, 255, 0).astype(np.uint8)
    r, c, positive = clicks.random_click(np.zeros((H, W), bool), mask, np.zeros((H, W), bool), rng)
    assert positive and c >= 40


@pytest.mark.parametrize("user", ["suggestions", "suggestions-alone", "random-in-error"])
def test_evaluate_with_users_who_do_not_see_the_error(tmp_path, user):
    from segapp.cli import main

    root = make_bsds(tmp_path / "bsds", n=1, h=40, w=60)
    out = tmp_path / "res.csv"
    rc = main(["evaluate", "--bsds", str(root), "--segments", "2", "--rounds", "2", "--user", user,
               "--methods", "e2cp", "--out", str(out)])
    assert rc == 0
    rows = list(csv.DictReader(open(out)))
    assert [int(r["round"]) for r in rows] == [0, 1, 2]
    assert f"user {user}" in (tmp_path / "res_summary.md").read_text()


def _grid_graph(n, weak_rows=None):
    """An n x n 4-neighbour grid graph, weight 1 (0.01 across the row boundary between
    ``weak_rows - 1`` and ``weak_rows``), and the node index of each (row, col)."""
    import scipy.sparse as sp

    idx = np.arange(n * n).reshape(n, n)
    pairs = [(idx[r, c], idx[r, c + 1]) for r in range(n) for c in range(n - 1)] + \
            [(idx[r, c], idx[r + 1, c]) for r in range(n - 1) for c in range(n)]
    a, b = np.array(pairs).T
    w = np.ones(len(a))
    if weak_rows is not None:
        w[(a // n == weak_rows - 1) & (b // n == weak_rows)] = 0.01
    return sp.coo_matrix((np.r_[w, w], (np.r_[a, b], np.r_[b, a])), shape=(n * n, n * n)).tocsr(), idx


def test_a_large_part_of_a_segment_no_stroke_has_confirmed_is_a_candidate():
    # 8 x 8 nodes: segment 0 the left half, 1 the right half; a weak edge row splits the
    # whole grid into top and bottom quarters; strokes in every quarter but the bottom-left
    # one (16 of 64 nodes), the one region no stroke has confirmed
    W, idx = _grid_graph(8, weak_rows=4)
    labels = (np.arange(64) % 8 >= 4).astype(np.int64)
    sizes = np.ones(64)
    c = np.full(64, 0.2)  # sure of every node: no node under the certainty threshold
    seeds = np.array([idx[1, 1], idx[1, 6], idx[5, 6]])
    found = S._unconfirmed(W, labels, seeds, sizes, c)
    assert len(found) == 1
    nodes, score = found[0]
    assert sorted(nodes.tolist()) == sorted(idx[4:, :4].ravel().tolist())
    assert score == pytest.approx(S.UNCONFIRMED_DOUBT * 16 * (1 - 0.2) / 2)
    # a stroke end inside it confirms it; a part under the share of the image is no candidate
    assert S._unconfirmed(W, labels, np.r_[seeds, idx[6, 1]], sizes, c) == []
    assert S._unconfirmed(W, labels, seeds, sizes, c, share=0.3) == []  # 16 / 64 = 0.25
    # before any stroke every large part is unconfirmed, also in a segment no stroke reached
    quarters = [sorted(idx[rows, cols].ravel().tolist()) for rows in (slice(0, 4), slice(4, 8))
                for cols in (slice(0, 4), slice(4, 8))]
    none = S._unconfirmed(W, labels, np.array([], np.int64), sizes, c)
    assert sorted(sorted(n.tolist()) for n, _ in none) == sorted(quarters)


def test_the_suggestion_asks_about_an_unconfirmed_region_before_a_smaller_doubt(monkeypatch):
    # three bands, K = 2: must-links in the red and the blue band, a cannot-link between
    # them; the green band in the middle goes to one of them with no stroke of its own. Given
    # only a small doubtful candidate in the red band, the suggestion is the green band (a
    # third of the image, unconfirmed) -- and the small candidate without the new candidates
    img, _ = _three_bands(noise=0.03)
    cons = core.Constraints([(2, 10, 45, 10, 1.0), (2, 53, 45, 53, 1.0)], [(24, 10, 24, 53, 1.0)])
    seg = _segment(img, cons, k=2)
    rep, labels, _ = S.node_level(seg)
    small = np.array([rep.node_at(24, 4)])
    monkeypatch.setattr(S, "_regions", lambda W, labels, c, sizes, threshold: [(small, 1.0)])
    r, col = core.suggest(seg, cons)[0].point
    assert 22 <= col < 42, (r, col)
    monkeypatch.setattr(S, "UNCONFIRMED_SHARE", 2.0)
    assert core.suggest(seg, cons)[0].point[1] < 21
