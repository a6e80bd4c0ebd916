"""The click protocol (core.eval.clicks) and `segapp evaluate --objects`."""

import numpy as np
import pytest
from PIL import Image

from segapp.core.errors import SegappError
from segapp.core.eval import clicks
from segapp.core.graph.representation import build_representation


def _mask(h=40, w=60):
    m = np.zeros((h, w), np.uint8)
    m[10:30, 20:50] = 255
    m[9, 20:50] = 128  # the unsure band is never scored or clicked
    return m


def test_first_click_is_the_centre_of_the_object():
    m = _mask()
    r, c, pos = clicks.next_click(np.zeros(m.shape, bool), m, np.zeros(m.shape, bool))
    assert pos and 18 <= r <= 21 and 29 <= c <= 40  # on the ridge of the distance transform


def test_negative_click_goes_to_the_larger_false_positive():
    m = _mask()
    pred = m == 255
    pred[0:8, 0:15] = True  # a false positive larger than any false negative
    r, c, pos = clicks.next_click(pred, m, np.zeros(m.shape, bool))
    assert not pos and r < 8 and c < 15
    assert clicks.next_click(m == 255, m, np.zeros(m.shape, bool)) is None  # nothing wrong


def test_the_border_counts_as_outside_and_clicked_pixels_are_skipped():
    m = np.zeros((20, 20), np.uint8)
    m[:, :10] = 255  # touches the border: its centre is 5 px from the left edge
    r, c, _ = clicks.next_click(np.zeros(m.shape, bool), m, np.zeros(m.shape, bool))
    assert 4 <= c <= 5
    clicked = np.zeros(m.shape, bool)
    clicked[r, c] = True
    assert clicks.next_click(np.zeros(m.shape, bool), m, clicked)[:2] != (r, c)


def test_iou_leaves_out_the_band():
    m = _mask()
    pred = (m == 255) | (m == 128)
    assert clicks.iou(pred, m) == 1.0
    assert clicks.iou(np.zeros(m.shape, bool), m) == 0.0


def test_clicks_as_points_and_as_strokes():
    cl = [(1, 1, True), (2, 2, False), (3, 3, True), (4, 4, False)]
    pts = clicks.clicks_to_constraints(cl, "points")
    assert [b.label for b in pts.blocks] == [1, 2, 1, 2]
    st = clicks.clicks_to_constraints(cl, "strokes")
    assert [tuple(x[:4]) for x in st.must_link] == [(1, 1, 3, 3), (2, 2, 4, 4)]
    assert [tuple(x[:4]) for x in st.cannot_link] == [(1, 1, 2, 2), (1, 1, 4, 4)]
    assert st.sequence()[-1] == ("cannot_link", 1)  # newest last
    with pytest.raises(SegappError, match="points, strokes"):
        clicks.clicks_to_constraints(cl, "lasso")


def test_object_is_the_segment_of_the_positive_clicks():
    labels = np.zeros((10, 10), int)
    labels[:, 5:] = 1
    cl = [(2, 7, True), (2, 2, False), (8, 8, True)]
    assert clicks.object_of(labels, cl, "strokes")[0, 9] and clicks.object_of(labels, cl, "points")[0, 9]
    assert not clicks.object_of(labels, [(1, 1, False)], "points").any()


def test_noc_and_ceiling():
    assert clicks.noc({1: 0.5, 2: 0.86, 3: 0.91}, 0.85) == 2
    assert clicks.noc({1: 0.5, 2: 0.8}, 0.90) == clicks.MAX_CLICKS
    m = np.zeros((40, 60), np.uint8)
    m[12:31, 23:47] = 255
    img = np.where((m == 255)[..., None], [0.8, 0.2, 0.2], [0.2, 0.6, 0.3])  # a red box on green
    rep = build_representation(img, "grid", 24, 10_000, 0.0)  # 10x10 cells: edges off the cell grid
    assert clicks.ceiling(rep, m, {"pixel_band": 0.0}) < 0.9  # the cells' outlines alone
    assert clicks.ceiling(rep, m) == 1.0  # refined at pixel level: the object's own outline


def _grabcut_folder(root, n=2):
    (root / "images").mkdir(parents=True)
    (root / "masks").mkdir()
    r = np.random.RandomState(0)
    for i in range(n):
        m = _mask()
        img = np.where((m == 255)[..., None], [200, 60, 40], [40, 90, 200]) + r.normal(0, 8, (40, 60, 3))
        Image.fromarray(np.clip(img, 0, 255).astype(np.uint8)).save(root / "images" / f"im{i}.png")
        Image.fromarray(m).save(root / "masks" / f"im{i}.bmp")
    (root / "images" / "nomask.png").write_bytes((root / "images" / "im0.png").read_bytes())
    return root


@pytest.mark.parametrize("mode", ["points", "strokes"])
def test_evaluate_objects_command(tmp_path, mode):
    import csv

    from segapp.cli import main

    root = _grabcut_folder(tmp_path / "gc")
    out = tmp_path / "clicks.csv"
    rc = main(["evaluate", "--objects", str(root), "--clicks", mode, "--methods", "e2cp,random-walker",
               "--out", str(out)])
    assert rc == 0
    rows = list(csv.DictReader(open(out)))
    assert {r["image"] for r in rows} == {"im0", "im1"}  # the image without a mask is left out
    assert {r["method"] for r in rows} == {"e2cp", "random-walker"}
    e2cp = [r for r in rows if r["method"] == "e2cp"]
    assert all(0 <= float(r["iou"]) <= 1 for r in e2cp) and any(r["ceiling"] for r in e2cp)
    text = (tmp_path / "clicks_summary.md").read_text()
    assert "NoC@90" in text and f"clicks as {mode}" in text


def test_a_folder_not_in_the_layout_is_refused(tmp_path):
    with pytest.raises(SegappError, match="images/ and masks/"):
        clicks.find_objects(tmp_path)


def test_an_image_with_no_click_to_make_counts_as_never_reaching():
    # a user who has nothing to click on one image (the suggestion-follower with no
    # suggestion on a cared pixel) must not drop the image from the means: it counts as
    # never reaching 0.85 or 0.90, with IoU 0 after every click
    from segapp.cli.evaluate_clicks import NO_CLICK, click_summary, per_click_table

    rows = [{"image": "a", "method": "e2cp", "click": 1, "iou": 0.95, "seconds": 0.1},
            {"image": "b", "method": "e2cp", "click": 0, "iou": 0.0, "error": NO_CLICK}]
    rec = click_summary(rows, ["e2cp"])[0]
    assert rec["NoC@90"] == pytest.approx((1 + clicks.MAX_CLICKS) / 2)
    assert rec["never@90"] == 1 and rec["iou@1"] == pytest.approx(0.475)
    assert rec["s/click"] == pytest.approx(0.1)
    assert "| e2cp | 0.475 |" in per_click_table(rows, ["e2cp"])
