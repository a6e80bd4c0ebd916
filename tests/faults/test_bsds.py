"""Bad BSDS folders and ``segapp evaluate`` arguments: DatasetError / ParameterError from
``core.eval.bsds``, exit status 2 with one line from ``segapp evaluate``, checked before any
image is segmented; the previous results stay whole."""

from __future__ import annotations

import numpy as np
import pytest

from segapp.core.eval import bsds
from segapp.core.eval.bsds import DatasetError

from tests.helpers import make_bsds

from .helpers import Unchanged, expect_cli_error, expect_error, ground_truth, write, write_mat

H, W = 12, 16


def _gt(root, name="100", **variables):
    return write_mat(root / "groundTruth" / "train" / f"{name}.mat", **variables)


def _halves(h=H, w=W):
    a = np.ones((h, w), np.uint16)
    a[:, w // 2:] = 2
    return a


# name -> (damage(root) applied to a good 2-image folder, message pattern)
FOLDERS = {
    "no-images-folder": (lambda r: _rmtree(r / "images"), "not a BSDS500 folder"),
    "empty-images-folder": (lambda r: [p.unlink() for p in (r / "images" / "train").iterdir()], "not a BSDS500 folder"),
    "empty-ground-truth-folder": (lambda r: [p.unlink() for p in (r / "groundTruth" / "train").iterdir()],
                                  "has a ground truth file"),
    "no-ground-truth-folder": (lambda r: _rmtree(r / "groundTruth"), "has a ground truth file"),
    "ground-truth-other-size": (lambda r: _gt(r, groundTruth=ground_truth(_halves(W, H))), "is 16x12 but its image is 12x16"),
    "ground-truth-one-annotator-other-size": (lambda r: _gt(r, groundTruth=ground_truth(_halves(), _halves(H + 1, W))),
                                              "segmentation 2 is 13x16"),
    "ground-truth-garbage": (lambda r: write(r / "groundTruth" / "train" / "100.mat", b"MATLAB? no" * 50),
                             "cannot read ground truth 100.mat"),
    "ground-truth-empty-file": (lambda r: write(r / "groundTruth" / "train" / "100.mat", b""),
                                "cannot read ground truth 100.mat"),
    "ground-truth-no-variable": (lambda r: _gt(r, labels=_halves()), "no 'groundTruth' variable"),
    "ground-truth-no-segmentation-field": (lambda r: _gt(r, groundTruth=np.array([[{"Boundaries": _halves()}]],
                                                                                  dtype=object)),
                                           "'Segmentation' field"),
    "ground-truth-empty-cell": (lambda r: _gt(r, groundTruth=np.empty((1, 0), dtype=object)), "holds no segmentation"),
    "ground-truth-label-zero": (lambda r: _gt(r, groundTruth=ground_truth(_halves() - 1)), "labels outside 1"),
    "ground-truth-nan-labels": (lambda r: _gt(r, groundTruth=ground_truth(np.full((H, W), np.nan))),
                                "not whole numbers"),
    "ground-truth-1d": (lambda r: _gt(r, groundTruth=ground_truth(np.ones(5))), "not a 2-D array|is 1x5"),
    "image-not-a-jpeg": (lambda r: write(r / "images" / "train" / "100.jpg", b"not a jpeg at all" * 10),
                         "cannot read image 100.jpg"),
}


def _rmtree(p):
    import shutil

    shutil.rmtree(p)


def _folder(tmp_path, case):
    root = make_bsds(tmp_path / "bsds", n=2, h=H, w=W)
    FOLDERS[case][0](root)
    return root


def _check(root):
    items = bsds.with_ground_truth(bsds.find_images(root, "train"), root)
    for it in items:
        bsds.check_item(it)


@pytest.mark.parametrize("case", list(FOLDERS))
def test_folder(case, tmp_path):
    expect_error(DatasetError, _check, _folder(tmp_path, case), match=FOLDERS[case][1])


@pytest.mark.parametrize("case", ["empty-ground-truth-folder", "ground-truth-other-size", "ground-truth-garbage",
                                  "image-not-a-jpeg", "no-images-folder"])
def test_evaluate_on_folder(case, tmp_path, capsys):
    root = _folder(tmp_path, case)
    out = tmp_path / "res.csv"
    out.write_text("previous results\n")
    with Unchanged(out):
        expect_cli_error(["evaluate", "--bsds", root, "--out", out, "--rounds", "1", "--methods", "ncut"], capsys,
                         FOLDERS[case][1])


def test_missing_and_file_roots(tmp_path):
    expect_error(DatasetError, bsds.find_images, tmp_path / "nope", match="not a BSDS500 folder: it does not exist")
    expect_error(DatasetError, bsds.find_images, write(tmp_path / "f.txt", b"x"), match="it is a file, not a folder")
    expect_error(DatasetError, bsds.find_images, tmp_path, "dev", match="unknown split 'dev'")
    expect_error(DatasetError, bsds.load_ground_truth, tmp_path / "none.mat", match="not found")


ARGS = {
    "limit-0": (["--limit", "0"], "--limit must be at least 1"),
    "limit-negative": (["--limit", "-1"], "--limit must be at least 1"),
    "rounds-negative": (["--rounds", "-1"], "--rounds must be 0-100"),
    "rounds-1000": (["--rounds", "1000"], "--rounds must be 0-100"),
    "jobs-0": (["--jobs", "0"], "--jobs must be at least 1"),
    "jobs-minus-2": (["--jobs", "-2"], "--jobs must be at least 1"),
    "segments-1": (["--segments", "1"], "--segments must be 2-5"),
    "segments-6": (["--segments", "6"], "--segments must be 2-5"),
    "methods-unknown": (["--methods", "kmeans"], "unknown method 'kmeans'"),
    "methods-empty": (["--methods", ""], "unknown method ''"),
    "methods-twice": (["--methods", "ncut,ncut"], "lists 'ncut' twice"),
    "param-unknown": (["--param", "colour=red"], "unknown --param 'colour'.*valid parameters"),
    "param-of-unselected-method": (["--methods", "ncut", "--param", "alpha=0.5"], "unknown --param 'alpha'"),
    "param-bad-value": (["--methods", "e2cp", "--param", "alpha=5"], "out of range"),
    "param-random_state": (["--param", "random_state=1"], "use --seed"),
    "param-n_segments": (["--param", "n_segments=3"], "use --segments"),
    "split-unknown": (["--split", "dev"], "invalid choice"),
    "mode-unknown": (["--mode", "clicks"], "invalid choice"),
    "bsds-missing": (["--bsds", "/nonexistent/bsds"], "not a BSDS500 folder: it does not exist"),
    "max-pixels-too-small": (["--max-pixels", "100"], None),
}


@pytest.mark.parametrize("case", list(ARGS))
def test_evaluate_arguments(case, tmp_path, capsys):
    args, match = ARGS[case]
    root = make_bsds(tmp_path / "bsds", n=1, h=H, w=W)
    out = tmp_path / "res.csv"
    out.write_text("previous results\n")
    argv = ["evaluate", "--bsds", root, "--out", out, "--rounds", "1", "--methods", "ncut", *args]
    if case == "max-pixels-too-small":  # every image refused while running: one error at the end
        match = "every method failed on every image.*more than the limit of 100"
    with Unchanged(out):
        expect_cli_error(argv, capsys, match)
