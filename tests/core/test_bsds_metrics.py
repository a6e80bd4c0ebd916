import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from segapp.core.eval import bsds, metrics
from tests.helpers import make_bsds


def test_loader_reads_images_and_annotators(tmp_path):
    root = make_bsds(tmp_path)
    items = bsds.find_images(root)
    assert [i.id for i in items] == ["100", "101", "102"] and items[0].split == "train"
    segs = bsds.load_ground_truth(items[0].ground_truth)
    assert len(segs) == 2 and segs[0].min() == 0 and segs[1].max() == 3


def test_loader_errors(tmp_path):
    with pytest.raises(bsds.DatasetError, match="not a BSDS500 folder"):
        bsds.find_images(tmp_path)
    (tmp_path / "bad.mat").write_bytes(b"nonsense")
    with pytest.raises(bsds.DatasetError, match="bad.mat"):
        bsds.load_ground_truth(tmp_path / "bad.mat")


def test_adjusted_rand_equals_sklearn(rng):
    for _ in range(5):
        a, b = rng.randint(0, 4, 500), rng.randint(0, 3, 500)
        b[:300] = a[:300]
        assert metrics.adjusted_rand(a, b) == pytest.approx(adjusted_rand_score(a, b), abs=1e-12)
    assert metrics.adjusted_rand([0, 0, 1, 1], [5, 5, 2, 2]) == 1.0


def test_metrics_on_hand_made_cases(rng):
    from sklearn.metrics import rand_score

    a = np.array([0, 0, 1, 1])
    b = np.array([0, 0, 0, 1])
    assert metrics.rand_index(a, b) == pytest.approx(0.5)  # 3 of 6 pairs agree
    x, y = rng.randint(0, 4, 300), rng.randint(0, 3, 300)
    assert metrics.rand_index(x, y) == pytest.approx(rand_score(x, y))
    assert metrics.variation_of_information(a, a) == pytest.approx(0, abs=1e-12)
    assert metrics.variation_of_information(a, np.zeros(4)) == pytest.approx(1.0)  # 1 bit
    assert metrics.probabilistic_rand_index(a, [a, b]) == pytest.approx(0.75)
    # covering: gt {0,1} each half; seg splits gt region 1 in two -> (2*1 + 2*0.5)/4
    assert metrics.segmentation_covering(np.array([0, 0, 1, 2]), a) == pytest.approx(0.75)
    # mean IoU with Hungarian matching and label permutation
    assert metrics.mean_iou(np.array([5, 5, 7, 7]), a) == 1.0
    assert metrics.mean_iou(b, a) == pytest.approx((2 / 3 + 1 / 2) / 2)  # {0,1} vs {0,1,2}; {2,3} vs {3}
    assert metrics.mean_iou(b, a, ignore=np.array([0, 0, 1, 0], bool)) == 1.0
    # constrained RI (Xia et al. eq. 11): must-linked pairs are removed from the decisions
    assert metrics.constrained_rand_index(a, a, [(0, 1)]) == 1.0
    assert metrics.constrained_rand_index(b, a, [(0, 1)]) == pytest.approx((3 - 1) / (6 - 1))


def test_target_keeps_the_k_largest_segments_of_the_coarsest_annotator():
    from segapp.core.eval import simulate

    a = np.array([[0, 0, 1, 1], [0, 0, 1, 2]])
    b = np.array([[0, 1, 2, 3], [4, 5, 6, 7]])
    t = simulate.make_target([b, a], 2)
    assert t.tolist() == [[0, 0, 1, 1], [0, 0, 1, -1]]


def test_target_comes_from_an_annotator_with_at_least_k_segments():
    """The coarsest annotator drew two segments; at K = 3 the target is the coarsest of those
    who drew at least three, so it has three regions; when nobody did, the coarsest."""
    from segapp.core.eval import simulate

    two = np.array([[0, 0, 1, 1], [0, 0, 1, 1]])
    four = np.array([[0, 0, 1, 1], [2, 2, 3, 1]])
    many = np.array([[0, 1, 2, 3], [4, 5, 6, 7]])
    t = simulate.make_target([many, two, four], 3)
    assert sorted(np.unique(t[t >= 0]).tolist()) == [0, 1, 2]
    assert t.tolist() == [[1, 1, 0, 0], [2, 2, -1, 0]]
    assert np.unique(simulate.make_target([two], 3)).tolist() == [0, 1]


def test_simulated_user_clicks_the_centre_of_the_largest_error():
    """Hand-made case: target left/right halves of a 20x20 image; the prediction wrongly puts
    a 6x6 square of the right half with the left. The click is at that square's centre, the
    must-link goes to the centre of the correct right part, the cannot-link to the centre of
    the left half."""
    from segapp.core.eval import simulate

    target = np.zeros((20, 20), np.int32)
    target[:, 10:] = 1
    pred = target.copy()
    pred[7:13, 12:18] = 0
    p, g, hp, gp = simulate.next_click(pred, target)
    assert p in [(9, 14), (9, 15), (10, 14), (10, 15)] and g == 1
    assert hp is not None and target[hp] == 0 and 4 <= hp[1] <= 5 and 4 <= hp[0] <= 15  # a deepest point
    assert target[gp] == 1 and pred[gp] == 1
    assert simulate.next_click(target, target) is None
    cons = simulate.add_round(core_constraints(), (p, g, hp, gp), "strokes", target.shape)
    assert len(cons.must_link) == 1 and len(cons.cannot_link) == 1
    blk = simulate.add_round(core_constraints(), (p, g, hp, gp), "blocks", target.shape)
    assert blk.blocks[0].label == 2 and blk.blocks[0].bottom - blk.blocks[0].top == 5


def core_constraints():
    from segapp import core

    return core.Constraints()


def test_evaluate_command_writes_csv_summary_and_chart(tmp_path):
    import csv

    from segapp.cli import main

    root = make_bsds(tmp_path / "bsds", n=2, h=40, w=60)
    out = tmp_path / "res.csv"
    rc = main(["evaluate", "--bsds", str(root), "--segments", "2", "--rounds", "2",
               "--methods", "ncut,gp-propagation,random-walker", "--out", str(out)])
    assert rc == 0
    rows = list(csv.DictReader(open(out)))
    assert len(rows) == 2 * 3 * 3  # images x methods x rounds 0..2
    assert {r["method"] for r in rows} == {"ncut", "gp-propagation", "random-walker"}
    assert all(-1 <= float(r["ari"]) <= 1 for r in rows)
    assert (tmp_path / "res_summary.md").read_text().count("|") > 10
    from PIL import Image

    assert Image.open(tmp_path / "res_ari.png").size == (760, 440)


@pytest.mark.parametrize("user, strokes", [("regions-first", 5), ("shuffled", 5), ("must-links", 4)])
def test_evaluate_with_a_people_like_user(tmp_path, user, strokes):
    """--user: one stroke per round, the health columns filled, the one-call ARI on the
    last round, and the summary names harmful / collapsed / blob-CL / order."""
    import csv

    from segapp.cli import main

    root = make_bsds(tmp_path / "bsds", n=2, h=40, w=60)
    out = tmp_path / "res.csv"
    rc = main(["evaluate", "--bsds", str(root), "--segments", "2", "--user", user,
               "--methods", "e2cp,random-walker", "--out", str(out)])
    assert rc == 0
    rows = list(csv.DictReader(open(out)))
    assert len(rows) == 2 * 2 * (strokes + 1)  # images x methods x rounds 0..strokes
    last = [r for r in rows if int(r["round"]) == strokes]
    assert all(r["one_call"] != "" and -1 <= float(r["one_call"]) <= 1 for r in last)
    assert all(r["collapsed"] in ("0.0", "1.0") for r in rows)
    summary = (tmp_path / "res_summary.md").read_text()
    for word in ("harmful", "collapsed", "blob-CL", "order", f"user {user}"):
        assert word in summary


def test_people_like_users_draw_strokes_only():
    from segapp.core.errors import ParameterError
    from segapp.cli.evaluate import _parser, check_args

    a = _parser().parse_args(["--bsds", "x", "--user", "shuffled", "--mode", "blocks"])
    with pytest.raises(ParameterError, match="--mode blocks takes --user error-centre"):
        check_args(a)


def test_the_simulated_user_records_the_order_it_draws_in():
    """Round 2's must-link is newer than round 1's cannot-link (not kind order), so the
    constraint-respecting rounding lets the newest stroke win as for a person."""
    from segapp.core.constraints import Constraints
    from segapp.core.eval.simulate import add_round

    c1 = add_round(Constraints(), ((10, 10), 0, (50, 50), (20, 20)), "strokes", (100, 100))
    c2 = add_round(c1, ((60, 60), 1, (15, 15), (70, 70)), "strokes", (100, 100))
    assert c2.sequence() == [("must_link", 0), ("cannot_link", 0), ("must_link", 1), ("cannot_link", 1)]
    c3 = add_round(c2, ((30, 30), 2, None, (80, 80)), "blocks", (100, 100))
    assert c3.sequence()[-1] == ("blocks", 0)


def test_a_block_never_covers_an_earlier_block_of_another_label():
    """Blocks mode: the 5x5 block at a click next to an earlier block of the other label is
    shifted off it (and onto the clicked segment), not painted over it; with no room for
    5x5 or 3x3 it shrinks to the clicked pixel."""
    from segapp.core.constraints import Block, Constraints
    from segapp.core.eval.simulate import add_round

    target = np.zeros((20, 20), np.int32)
    target[:, 10:] = 1
    first = Constraints(blocks=(Block(1, 5, 5, 10, 10),))  # label 1 = segment 0, rows 5-9, cols 5-9
    cons = add_round(first, ((8, 11), 1, None, (8, 15)), "blocks", target.shape, target)
    b = cons.blocks[-1]
    assert b.label == 2 and (b.bottom - b.top, b.right - b.left) == (5, 5)
    assert b.top <= 8 < b.bottom and b.left <= 11 < b.right
    assert b.left >= 10  # off the label-1 block and inside segment 1 (columns 10-19)
    assert (target[b.top:b.bottom, b.left:b.right] == 1).all()
    # a pixel boxed in by label-1 blocks on every side: the block is that pixel alone
    ring = Constraints(blocks=(Block(1, 0, 0, 8, 20), Block(1, 9, 0, 20, 20), Block(1, 8, 0, 9, 7),
                               Block(1, 8, 8, 9, 20)))
    b = add_round(ring, ((8, 7), 1, None, (15, 15)), "blocks", target.shape, target).blocks[-1]
    assert (b.top, b.left, b.bottom, b.right) == (8, 7, 9, 8)


def test_blocks_tie_predicted_segments_to_their_labels():
    """A prediction that paints label 2 over nearly everything and label 1 over its block
    alone: by overlap the big segment would be matched to the big target segment 0 and the
    user would click segment 1 again; by the blocks' labels the big segment is label 2's
    (segment 1), so the error is segment 0 and the next block is labelled 1."""
    from segapp.core.constraints import Block
    from segapp.core.eval import simulate

    target = np.zeros((30, 30), np.int32)
    target[20:, :] = 1  # segment 0: rows 0-19, segment 1: rows 20-29
    blocks = (Block(1, 2, 2, 7, 7), Block(2, 22, 10, 27, 15))
    pred = np.zeros((30, 30), np.int32)
    pred[2:7, 2:7] = 1  # label 1's block alone in predicted segment 1
    assert simulate.match(pred, target) == {0: 0, 1: 1}
    assert simulate.match(pred, target, blocks) == {0: 1, 1: 0}
    covered = np.zeros(target.shape, bool)
    for b in blocks:
        covered[b.top:b.bottom, b.left:b.right] = True
    p, g, hp, gp = simulate.next_click(pred, target, covered, blocks)
    assert target[p] == 0 and g == 0 and not covered[p]


def test_a_set_is_a_bsds_folder_or_any_folder_of_images(tmp_path):
    root = make_bsds(tmp_path / "bsds")
    assert bsds.find_set(root) == bsds.find_images(root)
    plain = tmp_path / "plain"
    plain.mkdir()
    for name in ("z.TIF", "a.png", "m.jpeg", "readme.md", "._a.png"):
        (plain / name).write_bytes(b"x")
    (plain / "sub.png").mkdir()  # a folder with an image's name is no image
    items = bsds.find_set(plain)
    assert [(i.split, i.id, i.ground_truth) for i in items] == [("", "a.png", None), ("", "m.jpeg", None),
                                                                 ("", "z.TIF", None)]
    (tmp_path / "empty").mkdir()
    with pytest.raises(bsds.DatasetError, match="holds no images: neither image files"):
        bsds.find_set(tmp_path / "empty")
    with pytest.raises(bsds.DatasetError, match="not a folder of images: it does not exist"):
        bsds.find_set(tmp_path / "nope")


def test_a_folder_with_an_images_folder_of_another_kind_lists_its_own_images(tmp_path):
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "x.png").write_bytes(b"x")  # not images/<split>/*.jpg
    (tmp_path / "top.png").write_bytes(b"x")
    assert [i.id for i in bsds.find_set(tmp_path)] == ["top.png"]
    (tmp_path / "top.png").unlink()  # nothing at the top (the GrabCut layout): images/ is the set
    assert [i.image for i in bsds.find_set(tmp_path)] == [tmp_path / "images" / "x.png"]
