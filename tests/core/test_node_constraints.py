"""How strokes become node constraints (core/node_constraints.py's rule, README "How a
stroke becomes constraints")."""

import numpy as np

from segapp import core
from segapp.core.graph.node_constraints import MAX_PER_END, components, map_constraints
from segapp.core.graph.representation import grid_representation


def _two_halves():
    img = np.zeros((40, 60), float)
    img[:, 30:] = 1.0
    return grid_representation(img, 600)  # 20 x 30 cells of 2 x 2 pixels


def _pairs(a):
    return {tuple(p) for p in a.tolist()}


def test_an_end_stands_for_its_same_colour_neighbourhood_which_is_must_linked_within():
    rep = _two_halves()
    cons = core.Constraints(must_link=[(20, 10, 20, 20)])
    nc = map_constraints(cons, rep, stroke_radius=0.1, sigma_intensity=0.1)
    a0, b0 = rep.node_of_pixel[20, 10], rep.node_of_pixel[20, 20]
    comp = components(nc.n_nodes, nc.must)
    group = np.flatnonzero(comp == comp[a0])
    assert comp[a0] == comp[b0]
    # every node of the closure is a dark (left-half) node: the colour gate keeps the link
    # from leaking across the edge, although the radius (7.2 px) is generous
    assert np.all(rep.colors[group, 0] < 0.5)
    assert 2 < len(group) <= 2 * MAX_PER_END
    # the end's own neighbourhood is a clique of must-links (not only a star through a0)
    end_a = [i for i in group if np.hypot(*(rep.positions[i] - rep.positions[a0])) <= 0.1 * np.hypot(40, 60)]
    must = _pairs(nc.must)
    assert all((min(i, j), max(i, j)) in must for i in end_a for j in end_a if i != j)


def test_a_cannot_link_joins_each_end_within_and_separates_the_ends():
    rep = _two_halves()
    cons = core.Constraints(cannot_link=[(20, 24, 20, 36)])
    nc = map_constraints(cons, rep, stroke_radius=0.1, sigma_intensity=0.1)
    comp = components(nc.n_nodes, nc.must)
    a0, b0 = rep.node_of_pixel[20, 24], rep.node_of_pixel[20, 36]
    A = np.flatnonzero(comp == comp[a0])
    B = np.flatnonzero(comp == comp[b0])
    assert len(A) > 1 and len(B) > 1 and not set(A) & set(B)
    assert _pairs(nc.cannot) == {(min(i, j), max(i, j)) for i in A for j in B}
    assert nc.contradictions == []


def test_without_radius_a_link_is_one_node_pair():
    rep = _two_halves()
    cons = core.Constraints(must_link=[(20, 10, 20, 20)])
    nc = map_constraints(cons, rep, stroke_radius=0.0)
    a0, b0 = sorted((rep.node_of_pixel[20, 10], rep.node_of_pixel[20, 20]))
    assert _pairs(nc.must) == {(a0, b0)}


def _pair_set(a):
    return {tuple(sorted(p)) for p in np.asarray(a).tolist()}


def test_block_pairs_under_the_budget_are_every_pair():
    from segapp.core.graph.node_constraints import _block_pairs

    labels = np.array([0, 0, 0, 1, 1, -1])
    m, c = _block_pairs(labels, 100, np.random.RandomState(0))
    assert _pair_set(m) == {(0, 1), (0, 2), (1, 2), (3, 4)}
    assert _pair_set(c) == {(a, b) for a in (0, 1, 2) for b in (3, 4)}


def test_block_pairs_beyond_the_budget_keep_each_label_chained():
    """90 labelled nodes of 3 labels give 3915 pairs; 200 are kept: the chain through each
    label (so must-link closure is exactly the labels), the rest drawn at random, every pair
    of the right kind, reproducible from the seed. (A drawn pair may repeat a chain pair;
    map_constraints removes duplicates.)"""
    from segapp.core.graph.node_constraints import _block_pairs

    labels = np.repeat([0, 1, 2], 30)
    labels[::7] = -1
    n = len(labels)
    m, c = _block_pairs(labels, 200, np.random.RandomState(0))
    assert len(m) + len(c) <= 200 and len(c) > 0
    assert len(_pair_set(c)) == len(c) and len(_pair_set(m)) > 0.9 * len(m)
    assert (labels[m[:, 0]] == labels[m[:, 1]]).all() and (labels[m] >= 0).all()
    assert (labels[c[:, 0]] != labels[c[:, 1]]).all() and (labels[c] >= 0).all()
    comp = components(n, m)
    lab = np.flatnonzero(labels >= 0)
    for k in range(3):
        assert len(set(comp[labels == k])) == 1  # each label one must-link component
    assert len(set(comp[lab])) == 3  # and no two labels joined
    m2, c2 = _block_pairs(labels, 200, np.random.RandomState(0))
    assert np.array_equal(m, m2) and np.array_equal(c, c2)
    m3, c3 = _block_pairs(labels, 200, np.random.RandomState(1))
    assert _pair_set(m3) != _pair_set(m) or _pair_set(c3) != _pair_set(c)


def test_block_pairs_when_the_chain_alone_exceeds_the_budget():
    """A budget smaller than the chains: the chains are kept whole and each pair of labels
    still gets cannot-links (one per label boundary), so no label is left unseparated."""
    from segapp.core.graph.node_constraints import _block_pairs

    labels = np.repeat([0, 1, 2], 20)
    m, c = _block_pairs(labels, 10, np.random.RandomState(0))
    assert len(m) == 3 * 19 and len(c) == 2
    assert (labels[c[:, 0]] != labels[c[:, 1]]).all()


def test_dedupe_keeps_the_largest_weight_and_first_group_in_pair_order():
    """_dedupe's one-key-per-pair unique gives what a row-wise unique gives: sorted unique
    pairs (self-pairs dropped), the largest weight of each, the group of its first copy."""
    from segapp.core.graph.node_constraints import _dedupe

    rng = np.random.RandomState(3)
    pairs = rng.randint(0, 40, size=(500, 2))
    w = rng.rand(500)
    g = rng.randint(0, 9, size=500)
    uniq, ww, gg = _dedupe(pairs, w, g)
    p = np.sort(pairs, axis=1)
    keep = p[:, 0] != p[:, 1]
    ref, first, inv = np.unique(p[keep], axis=0, return_index=True, return_inverse=True)
    np.testing.assert_array_equal(uniq, ref)
    np.testing.assert_array_equal(gg, g[keep][first])
    for k, row in enumerate(ref):
        same = (p[keep] == row).all(1)
        assert ww[k] == w[keep][same].max()


def test_link_pair_indices_are_the_rows_found_in_the_table():
    # _indices_of (which deduplicated node pairs came from links) against np.isin on
    # sorted keys: the sorted table of _dedupe, pairs given in either order, self-pairs ignored
    from segapp.core.graph.node_constraints import _dedupe, _indices_of

    r = np.random.RandomState(0)
    pairs = r.randint(0, 50, size=(400, 2))
    table, _ = _dedupe(pairs, np.ones(len(pairs)))
    rows = pairs[:150][:, ::-1]
    got = _indices_of(table, rows)
    lo, hi = rows.min(1), rows.max(1)
    keep = lo != hi
    span = table.max() + 1
    want = np.flatnonzero(np.isin(table[:, 0] * span + table[:, 1], lo[keep] * span + hi[keep]))
    np.testing.assert_array_equal(got, want)
    assert 0 < len(got) < len(table)
    # rows the table lacks: between its keys, before the first and after the last
    absent = np.array([[0, 0], [table[0, 0], table[0, 1]], [49, 60], [60, 70]])
    gaps = [(a, b) for a in range(50) for b in range(a + 1, 50) if not ((table[:, 0] == a) & (table[:, 1] == b)).any()]
    rows2 = np.vstack([absent, np.array(gaps[:20])[:, ::-1]])
    lo2, hi2 = rows2.min(1), rows2.max(1)
    keep2 = lo2 != hi2
    want2 = np.flatnonzero(np.isin(table[:, 0] * span + table[:, 1], lo2[keep2] * span + hi2[keep2]))
    np.testing.assert_array_equal(_indices_of(table, rows2), want2)
    assert len(want2) == 1  # only table[0] is there
    # a table not in _dedupe's order gives the same rows
    perm = r.permutation(len(table))
    np.testing.assert_array_equal(np.sort(perm[_indices_of(table[perm], rows)]), want)
