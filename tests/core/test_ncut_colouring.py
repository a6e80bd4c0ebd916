"""Step 2 of the constrained rounding with rounding_colouring='ncut': groups of
stroke ends go into segments by the normalised cut between their territories and what the
territories look like; segments no stroke reached are seeded by the method's result."""

import itertools
import warnings

import numpy as np
import pytest

from segapp import core
from segapp.core.eval import metrics, people
from segapp.core.constraint_step.looks import colour_codes, territory_looks
from segapp.core.constraint_step.ncut import _cheapest_numbering, ncut_colouring

CONSTRAINED = [m for m in core.METHODS if m != "ncut"]


def _brute(C, vol, apart, k, looks=None, lw=0.0):
    n = len(vol)
    best = (np.inf, None)
    for col in itertools.product(range(k), repeat=n):
        col = np.array(col)
        if len(set(col)) < min(k, n) or any(col[a] == col[b] for a, b in apart):
            continue
        val = 0.0
        for c in range(k):
            inn = col == c
            if inn.any():
                val += C[np.ix_(inn, ~inn)].sum() / vol[inn].sum()
        if looks is not None:
            w = np.full(n, 1.0 / n)
            for c in range(k):
                inn = col == c
                if inn.any():
                    mean = (w[inn, None] * looks[inn]).sum(0) / w[inn].sum()
                    val += lw * (w[inn] * ((looks[inn] - mean) ** 2).sum(1)).sum()
        if val < best[0] - 1e-12:
            best = (val, col)
    return best[1]


@pytest.mark.parametrize("seed", range(6))
def test_ncut_colouring_is_exact_on_small_problems(seed):
    r = np.random.RandomState(seed)
    n, k = 6, 3 if seed % 2 else 2
    C = r.rand(n, n)
    C = np.triu(C, 1) + np.triu(C, 1).T
    vol = r.rand(n) + 0.1
    looks = r.rand(n, 4)
    apart = [(0, 1)]
    got = ncut_colouring(C, vol, apart, k, looks=looks, looks_weight=0.7)
    want = _brute(C, vol, apart, k, looks, 0.7)
    # the same partition (colour numbers may differ)
    assert metrics.adjusted_rand(got, want) == pytest.approx(1.0)
    assert got[0] != got[1]


def test_ncut_does_not_isolate_a_stroke_end_the_cut_alone_would():
    # groups 0, 1, 2 in one region (strongly joined), 3 a cannot-linked stroke end joined
    # weakly to all: the cut alone pays least for {3} alone; its tiny territory makes that
    # expensive for the normalised cut, which puts 3 with 2, the group it is most joined to
    C = np.array([[0, 5, 5, 0.1], [5, 0, 5, 0.1], [5, 5, 0, 0.3], [0.1, 0.1, 0.3, 0]])
    vol = np.array([10, 10, 10, 0.2])
    col = ncut_colouring(C, vol, [(0, 3)], 2)
    assert col[3] != col[0] and col[2] == col[3]


def test_groups_that_look_alike_share_a_segment():
    # two groups far apart on the graph but of one look go together against a third
    C = np.array([[0, 0.01, 0.2], [0.01, 0, 0.2], [0.2, 0.2, 0]])
    vol = np.ones(3)
    looks = np.array([[1.0, 0], [1.0, 0], [0, 1.0]])
    assert ncut_colouring(C, vol, [], 2)[2] in (0, 1)
    col = ncut_colouring(C, vol, [], 2, looks=looks, looks_weight=5.0)
    assert col[0] == col[1] != col[2]


def test_numbers_follow_the_unary_terms():
    col = np.array([0, 0, 1])
    U = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])  # groups 0, 1 prefer colour 1
    assert _cheapest_numbering(col, U).tolist() == [1, 1, 0]


def test_territory_looks_are_unit_histograms():
    colors = np.r_[np.zeros((20, 3)), np.ones((20, 3))]
    sizes = np.ones(40)
    terr = np.r_[np.zeros(20, int), np.ones(20, int)]
    L = territory_looks(colour_codes((colors, sizes)), terr, 2)
    assert np.allclose((L ** 2).sum(1), 1.0) and L[0] @ L[1] == pytest.approx(0.0)


def _disc_image():
    r = np.random.RandomState(1)
    img = np.full((60, 90, 3), 0.25) + r.normal(0, 0.03, (60, 90, 3))
    yy, xx = np.mgrid[:60, :90]
    disc = (yy - 30) ** 2 + (xx - 60) ** 2 < 14 ** 2  # about 11% of the image
    img[disc] = (0.8, 0.6, 0.3)
    return np.clip(img, 0, 1), disc.astype(np.int32)


@pytest.mark.parametrize("colouring", ["auto", "ncut"])
@pytest.mark.parametrize("method", CONSTRAINED)
def test_regions_first_strokes_give_the_regions(method, colouring):
    """The regions-first user on a small disc in a large background: after every stroke no
    collapse (both segments at least 3%), no blob cannot-link, and at the end the disc."""
    img, target = _disc_image()
    strokes = people.region_strokes(target, 2)
    shown = {}
    for r in range(1, len(strokes) + 1):
        cons = people.constraints_of(strokes[:r])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            seg = core.segment(img, cons, method=method, n_segments=2, max_nodes=300, previous=shown.get("s"),
                               rounding_colouring=colouring)
        shown["s"] = seg
        h = people.health(seg.labels, target, cons, 2)
        assert h["collapsed"] == 0 and h["blob_cannot"] == 0, (r, h)
    assert metrics.adjusted_rand(target.ravel(), seg.labels.ravel()) > 0.9


@pytest.mark.parametrize("colouring", ["auto", "ncut"])
@pytest.mark.parametrize("method", CONSTRAINED)
def test_one_must_link_does_not_empty_the_other_segment(method, colouring):
    """A single must-link inside the disc at K = 2: the other segment comes from the
    method's result, not from a walk with nothing to start from (issue: 97.7 / 2.3%)."""
    img, target = _disc_image()
    cons = core.Constraints(must_link=[(22, 55, 38, 66, 1.0)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seg = core.segment(img, cons, method=method, n_segments=2, max_nodes=300, rounding_colouring=colouring)
    share = np.bincount(seg.labels.ravel(), minlength=2) / seg.labels.size
    assert share.min() >= 0.03, share


@pytest.mark.parametrize("colouring", ["auto", "ncut"])
def test_the_result_on_screen_changes_numbers_only(colouring):
    """No lock-in: given the result on screen, the partition is the one-call partition."""
    img, target = _disc_image()
    strokes = people.region_strokes(target, 2)
    cons = people.constraints_of(strokes)
    wrong = np.zeros(target.shape, np.int64)  # a collapsed result on screen
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = core.segment(img, cons, method="e2cp", n_segments=2, max_nodes=300, rounding_colouring=colouring)
        shown = core.segment(img, cons, method="e2cp", n_segments=2, max_nodes=300, previous=wrong,
                             rounding_colouring=colouring)
    assert metrics.adjusted_rand(one.labels.ravel(), shown.labels.ravel()) == pytest.approx(1.0)


# The window sequence on 100075.jpg (K = 2): must-links bear's head -> back, belly ->
# cub, one across the water, then cannot-links from the water to the bears. (row, col).
BEAR_SEQUENCE = [("must_link", (150, 90), (125, 270)), ("must_link", (200, 200), (170, 380)),
                 ("must_link", (70, 40), (60, 400)), ("cannot_link", (90, 60), (180, 230)),
                 ("cannot_link", (250, 30), (160, 400))]


@pytest.mark.parametrize("colouring", ["auto", "ncut"])
@pytest.mark.parametrize("method", CONSTRAINED)
def test_the_bear_sequence_drawn_as_in_the_window(method, colouring):
    from tests.conftest import BSDS

    path = BSDS / "images" / "train" / "100075.jpg"
    if not path.exists():
        pytest.skip("the BSDS500 images are not beside the checkout")
    img = core.load_image(path)
    shown = None
    for r in range(1, len(BEAR_SEQUENCE) + 1):
        cons = people.constraints_of(BEAR_SEQUENCE[:r])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            shown = core.segment(img, cons, method=method, n_segments=2, previous=shown,
                                 rounding_colouring=colouring)
        share = np.bincount(shown.labels.ravel(), minlength=2) / shown.labels.size
        assert share.min() >= 0.03, (r, share)  # never a single segment on the way
    L = shown.labels
    bears = {int(L[p]) for p in [(150, 90), (125, 270), (200, 200), (170, 380), (180, 230), (160, 400)]}
    water = {int(L[p]) for p in [(70, 40), (60, 400), (90, 60), (250, 30)]}
    assert len(bears) == 1 and len(water) == 1 and bears != water
    assert 0.25 < np.mean(L == bears.pop()) < 0.75  # the bears, not a blob around the stroke ends


def test_local_search_reaches_every_colour_from_a_start_with_too_few():
    """Beyond exact enumeration the single-group moves start from a colouring; one that uses
    too few colours (here one of four) used to stay infeasible and give None, so the step
    raised a TypeError with K = 4 on Berkeley images. Now the start is given enough colours
    first, and the result keeps every cannot-linked pair apart."""
    r = np.random.RandomState(0)
    n, k = 12, 4  # 4**12 colourings: more than enumerated exactly
    C = r.rand(n, n)
    C = np.triu(C, 1) + np.triu(C, 1).T
    vol = r.rand(n) + 0.1
    got = ncut_colouring(C, vol, [(0, 5)], k, start=np.zeros(n, np.int64))
    assert got is not None and len(set(got.tolist())) == k and got[0] != got[5]


def _three_bands():
    """Three colour bands side by side, a little noise."""
    r = np.random.RandomState(2)
    img = np.zeros((48, 90, 3)) + r.normal(0, 0.03, (48, 90, 3))
    img[:, :30] += (0.8, 0.2, 0.2)
    img[:, 30:60] += (0.2, 0.8, 0.2)
    img[:, 60:] += (0.2, 0.2, 0.8)
    target = np.repeat(np.arange(3), 30)[None, :].repeat(48, 0)
    return np.clip(img, 0, 1), target


@pytest.mark.parametrize("margin", [0.05, 1e6])
def test_csp_with_one_must_link_at_k3_is_not_one_segment(margin):
    """csp given one must-link has one feasible vector, and its own rounding (the paper's)
    is one segment at K = 3: the constraint step then reads csp's own result without
    strokes for the segments no stroke reaches (whatever rounding_unconstrained says), says
    so in info, and leaves rounding='paper' alone."""
    img, target = _three_bands()
    cons = core.Constraints(must_link=[(10, 5, 40, 25, 1.0)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        paper = core.segment(img, cons, method="csp", n_segments=3, max_nodes=300, rounding="paper")
        seg = core.segment(img, cons, method="csp", n_segments=3, max_nodes=300, rounding_unconstrained=margin)
    assert paper.info["n_feasible"] == 1 and len(np.unique(paper.labels)) == 1
    assert "unreached_from" not in paper.info
    assert seg.info["unreached_from"] == "unconstrained"
    assert metrics.adjusted_rand(target.ravel(), seg.labels.ravel()) > 0.9
    assert seg.honoured["must_link"].all()


@pytest.mark.parametrize("scene, link, k", [(_three_bands, (10, 5, 40, 25, 1.0), 3),
                                             (_disc_image, (8, 8, 50, 30, 1.0), 2)])
def test_a_method_that_fills_every_segment_is_read_as_it_is(scene, link, k):
    """e2cp's labels with one must-link fill every segment and cut the graph about as well
    as without strokes: read as they are (no result without strokes read)."""
    img, _ = scene()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seg = core.segment(img, core.Constraints(must_link=[link]), method="e2cp", n_segments=k, max_nodes=300)
    assert "unreached_from" not in seg.info


def test_a_blob_of_the_method_is_read_as_its_result_without_strokes():
    """csp's eq. 17 threshold on one must-link inside the background gives a blob around it
    (a normalised cut far above csp's own without strokes); the constraint step then reads
    csp without strokes for the segment no stroke reached (info says so), and the result is
    the disc against the background, where reading the blob (margin 1e6) is not."""
    img, target = _disc_image()
    cons = core.Constraints(must_link=[(8, 8, 50, 30, 1.0)])  # both ends in the background
    kw = dict(method="csp", n_segments=2, max_nodes=300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        paper = core.segment(img, cons, rounding="paper", **kw)
        free = core.segment(img, None, rounding="paper", **kw)
        seg = core.segment(img, cons, **kw)
        blob = core.segment(img, cons, rounding_unconstrained=1e6, **kw)
    assert metrics.adjusted_rand(target.ravel(), paper.labels.ravel()) < 0.5  # csp's own: not the disc
    assert metrics.adjusted_rand(target.ravel(), free.labels.ravel()) > 0.9  # csp without strokes: the disc
    assert seg.info["unreached_from"] == "unconstrained" and "unreached_from" not in blob.info
    assert metrics.adjusted_rand(target.ravel(), seg.labels.ravel()) > 0.9
    assert metrics.adjusted_rand(target.ravel(), blob.labels.ravel()) < 0.5
    assert seg.honoured["must_link"].all()


def test_one_segment_without_a_result_without_strokes_reads_the_graph():
    """The step's input without the method's result without strokes (an outside caller):
    a one-segment method result is replaced by the graph's NJW split."""
    from segapp.core.constraint_step.stage import ConstraintStep, unreached_source

    W = np.zeros((6, 6))
    for a, b in [(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5)]:
        W[a, b] = W[b, a] = 1.0
    W[2, 3] = W[3, 2] = 0.01
    from segapp.core.graph.node_constraints import NodeConstraints

    nc = NodeConstraints.from_pairs(6, must=[(0, 1)])
    E = np.ones((6, 2)) / np.sqrt(2)
    labels, _, source = unreached_source(np.zeros(6, np.int64), E, ConstraintStep(2, nc, graph=W))
    assert source == "graph" and set(labels[:3]) != set(labels[3:]) and len(set(labels[:3])) == 1
    two = np.array([0, 0, 0, 1, 1, 1])
    same, _, none = unreached_source(two, E, ConstraintStep(2, nc, graph=W))
    assert none is None and (same == two).all()


def test_a_group_spanning_two_method_segments_leaves_no_segment_empty():
    """Step 3 of the ncut colouring: one must-link group whose ends lie in both of the
    method's segments; the segment holding fewer of its stroke nodes seeds the colour no
    stroke took (before: both seeded the group's, and the other segment stayed empty)."""
    from segapp.core.constraint_step.ncut import _method_segment_colours

    labels = np.array([0, 0, 0, 0, 1, 1, 1])
    grouped = np.array([True, True, False, False, True, False, False])
    node_colour = np.where(grouped, 0, -1)
    as_colour = _method_segment_colours(labels, node_colour, grouped, [0, 1], [1], 2)
    assert as_colour.tolist() == [0, 1]


def _objective(C, vol, col, k, looks, lw):
    """:func:`ncut_colouring`'s objective computed from scratch (every group weighs 1/n)."""
    val, n = 0.0, len(col)
    w = np.full(n, 1.0 / n)
    for c in range(k):
        inn = col == c
        if inn.any():
            val += C[np.ix_(inn, ~inn)].sum() / vol[inn].sum()
            mean = (w[inn, None] * looks[inn]).sum(0) / w[inn].sum()
            val += lw * (w[inn] * ((looks[inn] - mean) ** 2).sum(1)).sum()
    return val


@pytest.mark.parametrize("seed,k", [(0, 2), (1, 2), (2, 3), (3, 4)])
def test_local_search_ends_where_no_single_move_helps(seed, k):
    # beyond the exact enumeration: single-group moves from the greedy start. The objective it
    # reports is the objective of its colouring, and no feasible move of one group lowers it.
    from segapp.core.constraint_step.ncut import _single_moves

    r = np.random.RandomState(seed)
    n = 40
    C = r.rand(n, n) * (r.rand(n, n) < 0.3)
    C = np.triu(C, 1) + np.triu(C, 1).T + np.diag(r.rand(n))  # a diagonal cuts nothing
    vol = r.rand(n) + 0.1
    looks = r.rand(n, 5)
    apart = np.array([(0, 1), (2, 3), (1, 4)], np.int64)
    start = r.randint(k, size=n)
    start[[0, 1, 2, 3, 4]] = [0, 1, 0, 1, 0]
    w = np.full(n, 1.0 / n)
    total = float((w * (looks ** 2).sum(1)).sum())
    col, cur = _single_moves(start.copy(), C, vol, C.sum(1), apart, k, k, w, w[:, None] * looks, total, 0.7)
    assert len(set(col.tolist())) == k and all(col[a] != col[b] for a, b in apart)
    assert cur == pytest.approx(_objective(C, vol, col, k, looks, 0.7), rel=1e-9)
    for g in range(n):
        for c in range(k):
            alt = col.copy()
            alt[g] = c
            if c == col[g] or len(set(alt.tolist())) < k or any(alt[a] == alt[b] for a, b in apart):
                continue
            assert _objective(C, vol, alt, k, looks, 0.7) >= cur - 1e-9


@pytest.mark.parametrize("k", range(1, 17))
def test_row_sums_on_python_floats_add_as_numpy_adds(k):
    # the local searches evaluate moves on Python floats; their sums must be numpy's to the
    # last bit, or a tie (or a gap of 1e-12) breaks otherwise than in the vectorised form
    from segapp.core.constraint_step.potts import _row_sum

    r = np.random.RandomState(k)
    for _ in range(200):
        rows = r.rand(3, k) * 10.0 ** r.uniform(-6, 6, (3, k)) * r.choice([-1, 1], (3, k))
        if r.rand() < 0.5:
            rows = np.round(rows * 10) / 10  # quantised values, as in exact ties
        want = rows.sum(-1)  # a row of k summed along the last axis, as the vectorised form did
        for i in range(3):
            assert _row_sum(rows[i].tolist()) == want[i]
            assert _row_sum(rows[i].tolist()) == rows[i].sum()


def test_local_searches_break_ties_as_the_vectorised_evaluation():
    # known answers of the vectorised single-group moves and greedy colouring (numpy arrays
    # per group, before the loops ran on Python floats); at k = 3 the order of a row's sum
    # decides these ties
    from segapp.core.constraint_step.ncut import _single_moves
    from segapp.core.constraint_step.potts import _greedy_colouring

    C = np.array([[0, 2, 2, 2], [2, 0, 0, 0], [2, 0, 0, 0], [2, 0, 0, 0]]) * 0.1
    vol = np.array([3, 2, 2, 3]) * 0.1
    col, _ = _single_moves(np.array([1, 0, 2, 1]), C, vol, C.sum(1), np.zeros((0, 2), np.int64), 3, 3,
                           None, None, 0.0, 0.0)
    np.testing.assert_array_equal(col, [0, 0, 2, 1])
    P = np.array([[0, 2, 2, 2, 3], [2, 0, 0, 0, 0], [2, 0, 0, 2, 0], [2, 0, 2, 0, 3], [3, 0, 0, 3, 0]]) * 0.1
    cost = np.array([[1, 0, 1], [0, 3, 3], [0, 2, 2], [1, 3, 0], [2, 2, 3]]) * 0.1
    np.testing.assert_array_equal(_greedy_colouring(cost, [set()] * 5, P), [1, 0, 1, 1, 1])
    r = np.random.RandomState(16)
    n = 12
    C = r.randint(0, 3, (n, n)) * 0.1 * (r.rand(n, n) < 0.4)
    C = np.triu(C, 1) + np.triu(C, 1).T
    vol = r.randint(1, 4, n) * 0.1
    np.testing.assert_array_equal(ncut_colouring(C, vol, [], 3), [1, 2, 2, 0, 0, 0, 0, 0, 0, 0, 1, 1])


def test_no_word_of_unreached_segments_when_every_segment_holds_a_stroke(monkeypatch):
    """csp given one must-link at K = 3 is read as csp without strokes for the segments no
    stroke reaches (above); once cannot-links reach the other two bands, every segment holds
    a stroke and ``info`` no longer speaks of segments no stroke reached (the window's status
    bar said "the segments no stroke reached follow csp without strokes" on 100075 with three
    labels at K = 3, where there were none). The labels are the same either way."""
    img, target = _three_bands()
    ml = (10, 5, 40, 25, 1.0)
    cons = core.Constraints(must_link=[ml], cannot_link=[(10, 5, 20, 45, 1.0), (10, 5, 20, 75, 1.0)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = core.segment(img, core.Constraints(must_link=[ml]), method="csp", n_segments=3, max_nodes=300)
        seg = core.segment(img, cons, method="csp", n_segments=3, max_nodes=300)
    assert one.info["unreached_from"] == "unconstrained"
    assert len(np.unique(seg.labels[[10, 20, 20], [5, 45, 75]])) == 3  # every segment holds a stroke end
    assert "unreached_from" not in seg.info
    assert metrics.adjusted_rand(target.ravel(), seg.labels.ravel()) > 0.9
    from segapp.core.constraint_step import stage

    monkeypatch.setattr(stage, "_every_segment_stroked", lambda *a: False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        said = core.segment(img, cons, method="csp", n_segments=3, max_nodes=300)
    assert said.info["unreached_from"] == "unconstrained"  # only the word differs
    np.testing.assert_array_equal(said.labels, seg.labels)
