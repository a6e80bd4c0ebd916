"""Public API, estimator rules, constraint files and bad input."""

import json
import warnings
import subprocess
import sys

import numpy as np
import pytest
from sklearn.base import clone

from segapp import core


def test_import_core_imports_no_qt():
    code = "import sys; from segapp import core; print([m for m in sys.modules if 'PySide' in m or 'pyqtgraph' in m or 'Qt' in m])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_registry_specs_are_complete():
    assert list(core.METHODS) == ["ncut", "spectral-learning", "gp-propagation", "csp", "e2cp", "rom", "ssap"]
    for name, spec in core.METHODS.items():
        assert spec.name == name and spec.reference and spec.description
        for p in spec.params:
            assert p.help and p.type in (int, float, str, bool)
            if p.default is not None:
                assert p.coerce(p.default) == p.default


def test_estimator_params_and_fit(rng):
    est = core.ConstrainedSpectralClustering("e2cp", 2, random_state=0, method_params={"alpha": 0.7})
    assert est.get_params()["method_params"] == {"alpha": 0.7}
    c = clone(est)
    assert c.get_params() == est.get_params() and not hasattr(c, "labels_")
    X = np.r_[rng.randn(20, 2), rng.randn(20, 2) + 5]
    assert est.fit(X, must_link=[(0, 1)], cannot_link=[(0, 30)]) is est
    assert est.labels_.shape == (40,) and est.affinity_matrix_.shape == (40, 40)
    assert est.embedding_.shape[0] == 40 and est.n_features_in_ == 2
    assert len(set(est.labels_[:20])) == 1 and len(set(est.labels_[20:])) == 1
    assert est.labels_[0] != est.labels_[30]
    # method_params reach the method: another alpha propagates the constraints differently
    other = clone(est).set_params(method_params={"alpha": 0.3}).fit(X, must_link=[(0, 1)], cannot_link=[(0, 30)])
    assert not np.allclose(other.affinity_matrix_, est.affinity_matrix_)


def test_estimator_precomputed(rng):
    X = np.r_[rng.randn(15, 2), rng.randn(15, 2) + 6]
    A = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 4)
    lab = core.ConstrainedSpectralClustering("gp-propagation", 2, affinity="precomputed").fit_predict(A)
    assert len(set(lab[:15])) == 1 and len(set(lab[15:])) == 1 and lab[0] != lab[15]


def test_constraints_json_round_trip(tmp_path):
    c = core.Constraints(must_link=[(1, 2, 3, 4), (5, 6, 7, 8, 0.5)], cannot_link=[(0, 0, 9, 9)],
                         blocks=[core.Block(2, 1, 1, 6, 6)])
    p = tmp_path / "c.json"
    text = c.to_json(p)
    assert json.loads(text)["version"] == 2
    assert core.Constraints.from_json(p) == c
    assert core.Constraints.from_json(text) == c


@pytest.mark.parametrize("text, match", [
    ("{", "malformed JSON"),
    ('{"must_link": [[1, 2]]}', "4 or 5 numbers"),
    ('{"must_link": [[1, 2, 3, 4, 2.0]]}', "outside \\(0, 1\\]"),
    ('{"cannot_link": [[1.5, 2, 3, 4]]}', "must be an integer"),
    ('{"blocks": [{"label": 1, "box": [5, 5, 2, 9]}]}', "empty"),
    ('{"links": []}', "unknown key"),
    ('[]', "JSON object"),
])
def test_malformed_constraint_files(text, match):
    with pytest.raises(core.ConstraintError, match=match):
        core.Constraints.from_json(text)


def test_link_outside_image():
    with pytest.raises(core.ConstraintError, match="outside the 20x30 image"):
        core.segment(np.zeros((20, 30)), core.Constraints(must_link=[(0, 0, 25, 3)]))


@pytest.mark.parametrize("image, match", [
    (np.zeros((0, 5)), "too small"),
    (np.zeros((1, 1)), "too small"),
    (np.full((5, 5), np.nan), "NaN"),
    (np.zeros((4, 4, 5)), "shape"),
    (np.array([["a"]]), "numeric|too small"),
])
def test_bad_arrays(image, match):
    with pytest.raises(core.InvalidImageError, match=match):
        core.segment(image)


def test_unknown_method_and_parameters_list_the_options():
    img = np.random.RandomState(0).rand(20, 20)
    with pytest.raises(core.ParameterError, match="valid methods: ncut, spectral-learning"):
        core.segment(img, method="kmeans")
    with pytest.raises(core.ParameterError, match="valid parameters: .*epsilon_c"):
        core.segment(img, method="gp-propagation", epsilon=1)
    with pytest.raises(core.ParameterError, match="out of range"):
        core.segment(img, method="e2cp", alpha=1.5)
    with pytest.raises(core.ParameterError, match="one of 'auto', 'A', 'B'"):
        core.segment(img, method="gp-propagation", algorithm="C")
    with pytest.raises(core.ParameterError, match=">= 2"):
        core.segment(img, n_segments=1)
    with pytest.raises(core.ParameterError, match="exceeds the"):
        core.segment(img, n_segments=50, max_nodes=20)


def test_contradiction_warns_with_own_class():
    img = np.random.RandomState(0).rand(30, 30)
    c = core.Constraints(must_link=[(1, 1, 10, 10), (10, 10, 20, 20)], cannot_link=[(1, 1, 20, 20)])
    with pytest.warns(core.ContradictoryConstraintsWarning, match="cannot-link #0"):
        seg = core.segment(img, c, method="spectral-learning")
    assert seg.warnings and "cannot-link #0" in seg.warnings[0]


def test_image_files(tmp_path):
    from PIL import Image

    rgb = (np.random.RandomState(0).rand(12, 20, 3) * 255).astype(np.uint8)
    Image.fromarray(rgb).save(tmp_path / "a.png")
    assert core.load_image(tmp_path / "a.png").shape == (12, 20, 3)
    Image.fromarray(rgb).convert("RGBA").save(tmp_path / "rgba.png")
    assert core.load_image(tmp_path / "rgba.png").shape == (12, 20, 4)  # alpha kept (all opaque)
    assert np.array_equal(core.as_float_image(core.load_image(tmp_path / "rgba.png")), rgb / 255.0)
    Image.fromarray(rgb).convert("P").save(tmp_path / "p.png")
    assert core.load_image(tmp_path / "p.png").shape == (12, 20, 3)
    g16 = (np.arange(240).reshape(12, 20) * 250).astype(np.uint16)
    Image.fromarray(g16).save(tmp_path / "g16.png")
    a16 = core.load_image(tmp_path / "g16.png")
    assert a16.dtype == np.uint16 and a16.max() == g16.max()
    assert core.as_float_image(a16).max() == pytest.approx(g16.max() / 65535)
    Image.fromarray(rgb).save(tmp_path / "t.tif")
    Image.fromarray(rgb).save(tmp_path / "b.bmp")
    assert core.load_image(tmp_path / "t.tif").shape == core.load_image(tmp_path / "b.bmp").shape
    # EXIF orientation 6 (rotate 90 CW) is honoured: 12x20 stored -> 20x12 shown
    im = Image.fromarray(rgb)
    exif = im.getexif()
    exif[0x0112] = 6
    im.save(tmp_path / "rot.jpg", exif=exif)
    assert core.load_image(tmp_path / "rot.jpg").shape[:2] == (20, 12)
    (tmp_path / "bad.png").write_bytes(b"\x89PNG\r\n\x1a\n garbage")
    with pytest.raises(core.InvalidImageError, match="bad.png"):
        core.load_image(tmp_path / "bad.png")
    with pytest.raises(core.InvalidImageError, match="not found"):
        core.load_image(tmp_path / "missing.png")


def test_one_spelling_per_constraint_kind():
    """core.Kind names each kind once: its value is the Constraints attribute and the file's
    key, its label the word messages and the window use."""
    assert [k.value for k in core.Kind] == ["must_link", "cannot_link", "blocks"]
    assert [k.label for k in core.Kind] == ["must-link", "cannot-link", "block"]
    c = core.Constraints(must_link=[(1, 1, 5, 5)], cannot_link=[(2, 2, 9, 9)])
    assert all(len(getattr(c, k)) == 1 for k in (core.Kind.MUST_LINK, core.Kind.CANNOT_LINK))
    assert set(json.loads(c.to_json())) >= {str(k) for k in core.Kind}
    with pytest.raises(core.ConstraintError, match="must-link #0"):
        c.validate((4, 4))


@pytest.mark.parametrize("method", [m for m in core.METHODS if m != "ncut"])
def test_a_block_of_label_l_is_segment_l_minus_1_whatever_the_previous_result(method):
    """Exported values stay with the user's labels: the result on screen (or none) and the
    method only number the segments no block names."""
    rng = np.random.RandomState(0)
    img = np.zeros((48, 72, 3))
    img[:, 24:48] = [0.9, 0.2, 0.2]
    img[:, 48:] = [0.2, 0.3, 0.9]
    img += 0.02 * rng.randn(*img.shape)
    cons = core.Constraints(blocks=[core.Block(3, 10, 2, 20, 12), core.Block(1, 10, 60, 20, 70)])
    flipped = np.zeros((48, 72), np.int64)
    flipped[:, :36] = 2
    for previous in (None, flipped):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            seg = core.segment(img, cons, method=method, n_segments=3, previous=previous,
                               representation="grid", max_nodes=48)
        assert seg.labels[15, 5] == 2 and seg.labels[15, 65] == 0
