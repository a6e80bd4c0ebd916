"""The eigenvector dock's captions read as the plot does, and its last slot shows where the
strokes overruled the method (issue "Strokes as people draw them", item 5)."""

import types

import numpy as np

from segapp.gui.eigen_view import decided_caption, missing_caption, vector_caption
from segapp.gui.paint import DECIDED_COLOURS, decided_rgba


def test_vectors_are_numbered_as_on_the_plot_axis():
    assert vector_caption("e2cp", 0, 0.0123) == "vector 1  λ=0.0123"
    assert vector_caption("csp", 0, 0.5) == "vector 1 (u*)  λ=0.5"
    assert vector_caption("csp", 2, 0.5).startswith("vector 3")


def test_missing_vectors_are_said_in_words():
    assert missing_caption([0.1, 0.2, np.nan]) == "only 2 vectors"
    assert missing_caption([0.1, np.nan, np.nan]) == "only 1 vector"
    assert "(none)" not in missing_caption([np.nan] * 3)


def test_the_decided_map_and_its_caption():
    res = types.SimpleNamespace(method="rom", info={"overruled_nodes": np.array([True, False, False, False])})
    assert decided_caption(res) == "25% relabelled by the strokes (orange)"
    node_map = types.SimpleNamespace(node_map=np.array([[0, 0, 0, 1] * 50] * 100))  # node 0: 75% of the pixels
    assert decided_caption(types.SimpleNamespace(method="rom", info=res.info, node_map=node_map)) \
        == "75% relabelled by the strokes (orange)"
    tiny = types.SimpleNamespace(node_map=np.array([[0] + [1] * 999]), )
    assert "under 1%" in decided_caption(types.SimpleNamespace(method="csp", info=res.info, node_map=tiny))
    none = {"overruled_nodes": np.zeros(4, bool)}
    assert "none relabelled" in decided_caption(types.SimpleNamespace(method="csp", info=none))
    assert decided_caption(types.SimpleNamespace(method="rom", info={})) == "rom's own labels"
    rgba = decided_rgba(np.array([True, False]), np.array([[0, 1], [1, 1]]))
    assert tuple(rgba[0, 0, :3]) == tuple(DECIDED_COLOURS[1]) and tuple(rgba[1, 1, :3]) == tuple(DECIDED_COLOURS[0])


def test_core_says_where_the_strokes_decided():
    """core.segment's info names the nodes whose final segment is not the method's own."""
    import warnings

    from segapp import core

    img = np.zeros((40, 60, 3))
    img[:, 30:] = 1.0
    img += np.random.RandomState(0).normal(0, 0.03, img.shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        free = core.segment(img, core.Constraints(), method="e2cp", n_segments=2, max_nodes=60)
        cut = core.segment(img, core.Constraints(cannot_link=[(20, 5, 20, 20, 1.0)]), method="e2cp",
                           n_segments=2, max_nodes=60)
    assert "overruled_nodes" not in free.info  # no strokes: the method's own labels
    over = cut.info["overruled_nodes"]
    assert over.shape == cut.node_labels.shape and 0 < over.mean() < 0.5  # the left half was split


def test_the_status_line_says_when_the_graph_stood_in_for_the_method():
    from types import SimpleNamespace

    from segapp.gui.status_text import result_line

    def result(info):
        return SimpleNamespace(method="csp", n_nodes=700, seconds=0.1, n_segments=3, warnings=(), info=info,
                               node_labels=np.array([0, 1, 2]), not_honoured=lambda: [])

    counts = {"must_link": 1, "cannot_link": 0, "blocks": 0}
    assert "normalised cut" in result_line(result({"unreached_from": "graph"}), counts)
    assert "normalised cut" not in result_line(result({}), counts)
    line = result_line(result({"unreached_from": "unconstrained"}), counts)
    assert "blob" in line and "csp without strokes" in line
    assert "blob" not in result_line(result({}), counts)
    assert "is kept" in result_line(result({"kept_screen": True}), counts)
    assert "is kept" not in result_line(result({}), counts)
    kept = result_line(result({"kept_screen": True, "kept_healthy": True}), counts)
    assert "new stroke and is kept" in kept and "shrunk a segment to under 3%" in kept
    assert "cut the image no better" not in kept
    assert "1 must-link joined through its segment" in result_line(result({"connected_must_links": 1}), counts)
    assert "2 must-links joined" in result_line(result({"connected_must_links": 2}), counts)
    assert "joined" not in result_line(result({}), counts)
    fresh = result_line(result({"one_call_unslivered": True}), counts)
    assert "read afresh, without the result on screen" in fresh and "blob under 3%" in fresh
    assert "read afresh" not in result_line(result({}), counts)
    filled = result_line(result({"unreached_filled": True}), counts)
    assert "no stroke reached would have been a sliver under 3%" in filled and "cuts the image best" in filled
    assert "would have been a sliver" not in result_line(result({}), counts)
    widened = result_line(result({"widened": True}), counts)
    assert "two blobs around its ends" in widened and "looks like its ends" in widened
    assert "two blobs" not in result_line(result({}), counts)
    assert "1 must-link drawn inside a segment on screen kept with the strokes there" in \
        result_line(result({"screen_groups": 1}), counts)
    assert "2 must-links drawn inside" in result_line(result({"screen_groups": 2}), counts)
    assert "drawn inside a segment" not in result_line(result({}), counts)
    assert "52 nodes far from every block went to the segment along the image's edge" in \
        result_line(result({"grounded": 52}), counts)
    assert "far from every block" not in result_line(result({}), counts)


def test_the_status_line_says_which_cannot_links_only_a_small_segment_keeps_apart():
    from types import SimpleNamespace

    from segapp.gui.status_text import result_line

    def result(info):
        return SimpleNamespace(method="e2cp", n_nodes=700, seconds=0.1, n_segments=3, warnings=(), info=info,
                               node_labels=np.array([0, 1, 2]), not_honoured=lambda: [])

    counts = {"must_link": 6, "cannot_link": 3, "blocks": 0}
    one = result_line(result({"small_cannot_links": [(1, 0.016)]}), counts)
    assert "the 2nd cannot-link (dashed) is kept apart only by a 1.6% segment" in one
    assert "that end’s region is larger, draw a must-link in it" in one
    two = result_line(result({"small_cannot_links": [(1, 0.029), (2, 0.016)]}), counts)
    assert "the 2nd and 3rd cannot-links (dashed) are kept apart only by a 1.6% segment" in two
    assert "draw a must-link in each" in two
    assert "kept apart" not in result_line(result({}), counts)


def test_strokes_are_counted_from_one_in_the_order_drawn():
    from segapp.gui.status_text import ordinal

    assert [ordinal(i) for i in (0, 1, 2, 3, 10, 11, 12, 20, 21, 100, 110)] == \
        ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"]



def test_the_eigenvalue_plot_never_keeps_a_point_on_its_edge():
    from segapp.gui.eigen_view import sticky_range

    first = sticky_range(0.02, 0.06, None)
    assert first[0] < 0.02 and first[1] > 0.06
    assert sticky_range(0.025, 0.058, first) is None  # inside, well away from the edges: kept
    edge = sticky_range(0.025, first[1] - 1e-6, first)  # the largest on the top edge: half outside
    assert edge is not None and edge[1] > first[1] - 1e-6


def test_the_quit_question_speaks_of_one_image_or_several():
    from pathlib import Path

    from segapp.gui.recovery import unsaved_text

    one = unsaved_text([Path("/x/309004.jpg")])
    assert one.startswith("309004.jpg has constraints") and "These images" not in one
    two = unsaved_text([Path("/x/a.jpg"), Path("/x/b.jpg")])
    assert two.startswith("These images have constraints") and "a.jpg\nb.jpg" in two


def test_a_drags_previews_count_their_node_sizes_once(monkeypatch):
    """Each preview is coloured by a fresh follower of the legend's matcher; the node sizes of
    the previews' map (one per drag, large on a 12 MP photo) are counted once and shared."""
    from types import SimpleNamespace as NS

    from segapp.gui import colours

    node_map = np.arange(12).reshape(3, 4)
    committed = NS(node_map=NS(shape=(3, 4), factor=1, node_map=node_map, key="refined"),
                   node_labels=np.array([0] * 6 + [1] * 6), n_segments=2)
    preview = NS(node_map=NS(shape=(3, 4), factor=1, node_map=node_map, key="base"),
                 node_labels=np.array([1] * 6 + [0] * 6), n_segments=2)
    counted = []
    real = np.bincount
    monkeypatch.setattr(colours.np, "bincount", lambda x, *a, **k: (  # the node map's counts only
        counted.append(len(x)) if np.max(x) == 11 else None) or real(x, *a, **k))
    main = colours.SegmentColours()
    main.assign(committed)
    for _ in range(5):
        info = main.follower().assign(preview)
        assert info.share.tolist() == [0.5, 0.5]
    assert counted == [12, 12]  # the committed map once, the previews' map once
