"""Bad constraint files and objects: malformed, huge, deep, wrong types, out of range,
contradictory. ``Constraints.from_json`` / ``from_dict`` / the constructor raise a
ConstraintError; ``segapp segment --constraints`` exits 2 with one line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from segapp import core
from segapp.core.constraints_file import MAX_FILE_BYTES
from segapp.core.errors import ConstraintError

from .helpers import expect_cli_error, expect_error, run_cli

LINK = "[10, 10, 20, 20]"

TEXTS = {
    # malformed JSON
    "unclosed-brace": ("{", "malformed JSON"),
    "whitespace-only": ("   \n ", "malformed JSON"),
    "trailing-comma": ('{"must_link": [[1, 2, 3, 4]],}', "malformed JSON"),
    "single-quotes": ("{'must_link': []}", "malformed JSON"),
    "comment": ('{"must_link": [] // none\n}', "malformed JSON"),
    # wrong top-level types
    "a-list": ("[]", "JSON object"),
    "a-number": ("5", "JSON object"),
    "a-string": ('"must_link"', "JSON object"),
    "null": ("null", "JSON object"),
    # huge, deep
    "coordinate-5000-digits": ('{"must_link": [[%s, 1, 2, 3]]}' % ("7" * 5000), "5000 digits"),
    "exponent-overflow": ('{"must_link": [[1e999, 1, 2, 3]]}', "too large"),
    "nested-lists-100000": ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    "nested-objects-100000": ('{"a":' * 100_000 + "1" + "}" * 100_000, "nested too deeply"),
    "nested-in-must-link": ('{"must_link": %s}' % ("[" * 50_000 + "]" * 50_000), "nested too deeply"),
    # non-numbers
    "nan": ('{"must_link": [[NaN, 1, 2, 3]]}', "NaN is not a number"),
    "infinity": ('{"must_link": [[1, 1, 2, 3, Infinity]]}', "Infinity is not a number"),
    "minus-infinity": ('{"cannot_link": [[-Infinity, 1, 2, 3]]}', "Infinity is not a number"),
    # keys and versions
    "unknown-key": ('{"links": []}', "unknown key 'links'"),
    "version-3": ('{"version": 3}', "version 3 is not supported"),
    "version-string": ('{"version": "1"}', "version '1' is not supported"),
    "version-true": ('{"version": true}', "version True is not supported"),
    # lists of the wrong type
    "must-link-object": ('{"must_link": {"a": 1}}', "'must_link' must be a list"),
    "cannot-link-string": ('{"cannot_link": "1,2,3,4"}', "'cannot_link' must be a list"),
    "blocks-number": ('{"blocks": 3}', "'blocks' must be a list"),
    "must-link-null": ('{"must_link": null}', "'must_link' must be a list"),
    # links
    "link-two-numbers": ('{"must_link": [[1, 2]]}', "4 or 5 numbers"),
    "link-six-numbers": ('{"must_link": [[1, 2, 3, 4, 0.5, 1]]}', "4 or 5 numbers"),
    "link-a-number": ('{"must_link": [7]}', "must be a list"),
    "link-a-string": ('{"must_link": ["1234"]}', "must be an integer"),
    "link-an-object": ('{"cannot_link": [{"r1": 1}]}', "4 or 5 numbers"),
    "coordinate-negative": ('{"must_link": [[-1, 1, 2, 3]]}', "-1 is outside"),
    "coordinate-2-pow-31": ('{"must_link": [[2147483648, 1, 2, 3]]}', "outside \\[0, 2147483647\\]"),
    "coordinate-fraction": ('{"cannot_link": [[1.5, 2, 3, 4]]}', "must be an integer"),
    "coordinate-string": ('{"must_link": [["1", 2, 3, 4]]}', "must be an integer"),
    "coordinate-true": ('{"must_link": [[true, 2, 3, 4]]}', "must be an integer"),
    "coordinate-null": ('{"must_link": [[null, 2, 3, 4]]}', "must be an integer"),
    "coordinate-list": ('{"must_link": [[[1], 2, 3, 4]]}', "must be an integer"),
    "weight-zero": ('{"must_link": [[1, 2, 3, 4, 0]]}', "outside \\(0, 1\\]"),
    "weight-negative": ('{"must_link": [[1, 2, 3, 4, -0.5]]}', "outside \\(0, 1\\]"),
    "weight-two": ('{"cannot_link": [[1, 2, 3, 4, 2.0]]}', "outside \\(0, 1\\]"),
    "weight-string": ('{"must_link": [[1, 2, 3, 4, "0.5"]]}', "non-numeric weight"),
    "weight-true": ('{"must_link": [[1, 2, 3, 4, true]]}', "non-numeric weight"),
    "weight-null": ('{"must_link": [[1, 2, 3, 4, null]]}', "non-numeric weight"),
    # blocks
    "block-a-list": ('{"blocks": [[1, 0, 0, 5, 5]]}', "must be an object"),
    "block-no-label": ('{"blocks": [{"box": [0, 0, 5, 5]}]}', "must be an object"),
    "block-no-box": ('{"blocks": [{"label": 1}]}', "must be an object"),
    "block-extra-key": ('{"blocks": [{"label": 1, "box": [0, 0, 5, 5], "colour": "red"}]}', "unknown key 'colour'"),
    "block-box-three": ('{"blocks": [{"label": 1, "box": [0, 0, 5]}]}', "box must be"),
    "block-box-strings": ('{"blocks": [{"label": 1, "box": ["0", "0", "5", "5"]}]}', "must be an integer"),
    "block-box-floats": ('{"blocks": [{"label": 1, "box": [0.0, 0, 5, 5]}]}', "must be an integer"),
    "block-empty-box": ('{"blocks": [{"label": 1, "box": [5, 5, 2, 9]}]}', "is empty"),
    "block-negative-top": ('{"blocks": [{"label": 1, "box": [-3, 0, 5, 5]}]}', "block top -3 is outside"),
    "block-label-minus-one": ('{"blocks": [{"label": -1, "box": [0, 0, 5, 5]}]}', "label -1 is outside \\[1, 255\\]"),
    "block-label-zero": ('{"blocks": [{"label": 0, "box": [0, 0, 5, 5]}]}', "label 0 is outside"),
    "block-label-256": ('{"blocks": [{"label": 256, "box": [0, 0, 5, 5]}]}', "label 256 is outside"),
    "block-label-10-pow-12": ('{"blocks": [{"label": 1000000000000, "box": [0, 0, 5, 5]}]}', "13 digits"),
    "block-label-99999999999": ('{"blocks": [{"label": 99999999999, "box": [0, 0, 5, 5]}]}', "outside \\[1, 255\\]"),
    "block-label-fraction": ('{"blocks": [{"label": 1.5, "box": [0, 0, 5, 5]}]}', "must be an integer"),
    "block-label-string": ('{"blocks": [{"label": "one", "box": [0, 0, 5, 5]}]}', "must be an integer"),
    "block-label-true": ('{"blocks": [{"label": true, "box": [0, 0, 5, 5]}]}', "must be an integer"),
}


@pytest.mark.parametrize("case", list(TEXTS))
def test_from_json_text(case):
    text, match = TEXTS[case]
    expect_error(ConstraintError, core.Constraints.from_json, text, match=match)


def test_weight_with_5000_digits_is_a_plain_number():
    """A weight of 0.999... (5000 nines) is a float just below 1: valid, not an error."""
    c = core.Constraints.from_json('{"must_link": [[1, 1, 2, 3, 0.%s]]}' % ("9" * 5000))
    assert c.must_link[0][4] == 1.0


DICTS = {
    "not-a-dict": ([1, 2], "JSON object"),
    "none": (None, "JSON object"),
    "numpy-array-link": ({"must_link": np.array([[1, 2, 3, 4]])}, "'must_link' must be a list"),
}


@pytest.mark.parametrize("case", list(DICTS))
def test_from_dict(case):
    data, match = DICTS[case]
    expect_error(ConstraintError, core.Constraints.from_dict, data, match=match)


FILES = {
    "missing": (lambda t: t / "none.json", "not found"),
    "folder": (lambda t: (t / "c.json").mkdir() or t / "c.json", "is a folder"),
    "empty-file": (lambda t: _w(t / "c.json", b""), "malformed JSON"),
    "binary": (lambda t: _w(t / "c.json", bytes(range(256)) * 4), "not UTF-8"),
    "latin-1": (lambda t: _w(t / "c.json", '{"must_link": [], "é": 1}'.encode("latin-1")), "not UTF-8"),
    "utf-16": (lambda t: _w(t / "c.json", '{"must_link": []}'.encode("utf-16")), "not UTF-8"),
    "too-large": (lambda t: _sparse(t / "c.json", MAX_FILE_BYTES + 1), "more than the limit"),
    "name-too-long": (lambda t: t / ("c" * 300 + ".json"), "too long"),
    "deep-in-a-file": (lambda t: _w(t / "c.json", ("[" * 100_000 + "]" * 100_000).encode()), "nested too deeply"),
}


def _w(p, data):
    p.write_bytes(data)
    return p


def _sparse(p, size):
    with open(p, "wb") as f:
        f.truncate(size)  # a sparse file: no disk space used
    return p


@pytest.mark.parametrize("case", list(FILES))
def test_from_json_file(case, tmp_path):
    make, match = FILES[case]
    expect_error(ConstraintError, core.Constraints.from_json, make(tmp_path), match=match)


def test_unreadable_file(tmp_path, monkeypatch):
    p = _w(tmp_path / "c.json", b'{"must_link": []}')

    def denied(*a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("segapp.core._io.open", denied, raising=False)  # what open_to_read calls
    expect_error(ConstraintError, core.Constraints.from_json, p, match="no permission")


def test_utf8_with_bom_is_read(tmp_path):
    p = _w(tmp_path / "c.json", '\ufeff{"must_link": [[1, 2, 3, 4]]}'.encode("utf-8"))
    assert core.Constraints.from_json(p).must_link == ((1, 2, 3, 4, 1.0),)


@pytest.mark.parametrize("kwargs, match", [
    ({"must_link": 5}, "must_link must be a list, got int"),
    ({"cannot_link": "0,0,1,1"}, "cannot_link must be a list, got str"),
    ({"blocks": [(1, 0, 0, 5, 5)]}, "must be a core.Block"),
    ({"blocks": {"label": 1}}, "blocks must be a list"),
    ({"must_link": [(0, 0, 1)]}, "4 or 5 numbers"),
    ({"must_link": [(0, 0, 1, np.nan)]}, "must be an integer"),
    ({"cannot_link": [(0, 0, 1, 1, np.nan)]}, "outside \\(0, 1\\]"),
    ({"cannot_link": [(0, 0, 1, 1, np.inf)]}, "outside \\(0, 1\\]"),
    ({"must_link": [(0, 0, 1, 10**20)]}, "outside"),
])
def test_constructor(kwargs, match):
    expect_error(ConstraintError, core.Constraints, match=match, **kwargs)


@pytest.mark.parametrize("args, match", [
    ((1, 5, 5, 5, 9), "empty"), ((0, 0, 0, 5, 5), "label 0"), ((1, -1, 0, 5, 5), "top -1"),
    ((1.0, 0, 0, 5, 5), "label must be an integer"), ((1, 0, 0, 5, 2**40), "right"),
])
def test_block_constructor(args, match):
    expect_error(ConstraintError, core.Block, *args, match=match)


# -- on the command line ----------------------------------------------------------------------
CLI = {
    "outside-the-image": ({"must_link": [[0, 0, 5000, 5]]}, "outside the 240x360 image"),
    "block-outside": ({"blocks": [{"label": 1, "box": [0, 0, 300, 20]}]}, "block #0 box .* outside"),
    "contradiction": ({"must_link": [[5, 5, 50, 50]], "cannot_link": [[5, 5, 50, 50]]}, "contradictory"),
    "chain-contradiction": ({"must_link": [[5, 5, 50, 50], [50, 50, 100, 100]], "cannot_link": [[5, 5, 100, 100]]},
                            "contradictory"),
    "overlapping-blocks": ({"blocks": [{"label": 1, "box": [0, 0, 20, 20]}, {"label": 2, "box": [10, 10, 30, 30]}]},
                           "overlap"),
    "label-minus-one": ({"blocks": [{"label": -1, "box": [0, 0, 5, 5]}]}, "label -1"),
    "label-10-pow-12": ({"blocks": [{"label": 10**12, "box": [0, 0, 5, 5]}]}, "digits"),
    "5000-digit-coordinate": ('{"must_link": [[%s, 1, 2, 3]]}' % ("1" * 5000), "5000 digits"),
    "deep": ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
}


@pytest.mark.parametrize("case", list(CLI))
def test_segment_command(case, tmp_path, capsys):
    data, match = CLI[case]
    c = tmp_path / "c.json"
    c.write_text(data if isinstance(data, str) else json.dumps(data))
    expect_cli_error(["segment", "--demo", "--constraints", c, "--out", tmp_path / "m.png"], capsys, match)
    assert not (tmp_path / "m.png").exists()


def test_cannot_link_inside_one_superpixel_is_honoured_by_splitting_the_node(tmp_path, capsys):
    """Both ends in one graph node: the node is split where the stroke's ends lie
    (:mod:`core.graph.refine`) and the exported mask puts the ends in different segments."""
    import skimage.io

    seg = core.segment(core.load_image(_demo()), None, method="ncut")
    nodes = seg.representation.node_of_pixel
    (r1, c1), (r2, c2) = np.argwhere(nodes == nodes[100, 100])[[0, -1]]
    c = tmp_path / "c.json"
    c.write_text(json.dumps({"cannot_link": [[int(r1), int(c1), int(r2), int(c2)]]}))
    r = run_cli(["segment", "--demo", "--constraints", c, "--method", "e2cp", "--out", tmp_path / "m.png"],
                capsys)
    assert r.code == 0 and "Traceback" not in r.err and "not honoured" not in r.err, r.err
    mask = skimage.io.imread(tmp_path / "m.png")
    assert mask[r1, c1] != mask[r2, c2]


def test_ncut_says_it_ignores_constraints(tmp_path, capsys):
    c = tmp_path / "c.json"
    c.write_text(json.dumps({"cannot_link": [[10, 10, 200, 300]]}))
    r = run_cli(["segment", "--demo", "--constraints", c, "--method", "ncut", "--out", tmp_path / "m.png",
                 "--param", "max_nodes=100"], capsys)
    assert r.code == 0 and "ncut ignores constraints" in r.err and "Traceback" not in r.err


def _demo():
    from segapp.resources import DEMO_IMAGE

    return DEMO_IMAGE


def _random_must_links(h, w, n=1000, seed=0):
    return [tuple(int(v) for v in p) for p in np.random.RandomState(seed).randint(0, [h, w, h, w], size=(n, 4))]


def test_thousand_random_must_links_give_a_csp_result():
    """Valid input that csp used to refuse ("no feasible eigenvector; lower beta"): now a
    result, with a ConvergenceWarning saying beta was lowered from eq. 17's value."""
    img = np.random.RandomState(0).rand(40, 60)
    c = core.Constraints(must_link=_random_must_links(40, 60))
    with pytest.warns(core.ConvergenceWarning, match="eq. 17.*halved"):
        seg = core.segment(img, c, method="csp", representation="grid", max_nodes=100)
    assert seg.info["beta_halvings"] >= 1 and seg.params["beta"] < seg.info["beta_eq17"]
    assert seg.labels.shape == (40, 60)


def test_thousand_random_must_links_on_the_command_line(tmp_path, capsys):
    from .helpers import encoded, write

    img = write(tmp_path / "n.png", encoded((np.random.RandomState(0).rand(40, 60) * 255).astype(np.uint8), "PNG"))
    c = tmp_path / "c.json"
    c.write_text(json.dumps({"must_link": _random_must_links(40, 60)}))
    r = run_cli(["segment", img, "--constraints", c, "--out", tmp_path / "m.png", "--param", "representation=grid",
                 "--param", "max_nodes=100"], capsys)
    assert r.code == 0 and (tmp_path / "m.png").exists()
    assert "beta was halved" in r.err and "Traceback" not in r.err


def test_a_constraint_the_result_breaks_is_reported(tmp_path, capsys):
    """A weak cannot-link across the demo's sky, which spectral-learning with its paper's own
    rounding does not honour: the command succeeds and says which constraint the result breaks
    (the default, constraint-respecting rounding honours it: see tests/core/test_rounding.py)."""
    c = tmp_path / "c.json"
    c.write_text(json.dumps({"cannot_link": [[20, 20, 20, 340, 0.1]]}))
    r = run_cli(["segment", "--demo", "--constraints", c, "--method", "spectral-learning",
                 "--param", "rounding=paper", "--out", tmp_path / "m.png"], capsys)
    assert r.code == 0 and "1 of 1 cannot-links not honoured in the result (#0)" in r.err


def test_a_cannot_link_kept_apart_only_by_a_small_segment_is_said(tmp_path, capsys):
    """A cannot-link from a 9 x 9 square (0.8% of the image) to the rest: honoured, and the
    command says that only a small segment keeps it apart, and what would settle it."""
    from .helpers import encoded, write

    arr = np.full((80, 120), 64, np.uint8)
    arr[10:19, 10:19] = 230
    img = write(tmp_path / "sq.png", encoded(arr, "PNG"))
    c = tmp_path / "c.json"
    c.write_text(json.dumps({"cannot_link": [[14, 14, 60, 90]]}))
    r = run_cli(["segment", img, "--constraints", c, "--method", "e2cp", "--out", tmp_path / "m.png"], capsys)
    assert r.code == 0 and "not honoured" not in r.err and "Traceback" not in r.err
    assert "cannot-link #0 is kept apart only by a segment of 0.8% of the image" in r.err
    assert "draw a must-link inside it" in r.err
