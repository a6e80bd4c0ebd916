"""ParamSpec.coerce, resolve and check_seed: the conversions every front door relies on."""

from __future__ import annotations

import numpy as np
import pytest

from segapp.core.errors import ParameterError
from segapp.core.params import MAX_SEED, ParamSpec, check_seed, resolve

INT = ParamSpec("n", int, 5, "an int", low=1, high=10)
OPEN = ParamSpec("s", float, 0.5, "a float", low=0.0, high=1.0, low_open=True, high_open=True)
BOOL = ParamSpec("flag", bool, False, "a bool")
CHOICE = ParamSpec("kind", str, "a", "a choice", choices=("a", "b"))
LATE = ParamSpec("beta", float, None, "resolved at run time")


@pytest.mark.parametrize("spec, given, expected", [
    (INT, "7", 7), (INT, 7.0, 7), (INT, np.int64(3), 3), (INT, 1, 1), (INT, 10, 10),
    (OPEN, "0.25", 0.25), (OPEN, np.float32(0.5), 0.5), (LATE, 3, 3.0),
    (BOOL, "yes", True), (BOOL, "Off", False), (BOOL, "1", True), (BOOL, 0, False), (BOOL, True, True),
    (CHOICE, "b", "b"), (LATE, "2", 2.0),
])
def test_coerce_converts(spec, given, expected):
    got = spec.coerce(given)
    assert got == expected and type(got) is spec.type


def test_none_is_kept_only_where_the_default_is_resolved_later():
    assert LATE.coerce(None) is None
    with pytest.raises(ParameterError, match="cannot be None"):
        OPEN.coerce(None)


@pytest.mark.parametrize("spec, given, match", [
    (INT, 7.5, "must be int"), (INT, True, "must be int"), (INT, "seven", "must be int"), (INT, None, "cannot be None"),
    (INT, 0, "out of range \\[1, 10\\]"), (INT, 11, "out of range"),
    (OPEN, 0.0, "out of range \\(0, 1\\)"), (OPEN, 1.0, "out of range"), (OPEN, "nan", "finite"),
    (OPEN, float("inf"), "finite"), (OPEN, False, "must be float"), (OPEN, [0.5], "must be float"),
    (BOOL, "maybe", "must be bool"), (CHOICE, "c", "one of 'a', 'b'"),
])
def test_coerce_refuses(spec, given, match):
    with pytest.raises(ParameterError, match=match):
        spec.coerce(given)


def test_range_text():
    assert INT.range_text() == "[1, 10]" and OPEN.range_text() == "(0, 1)"
    assert LATE.range_text() == "[-inf, inf]" and BOOL.range_text() == "true or false"


def test_resolve_fills_defaults_and_lists_valid_names():
    assert resolve((INT, OPEN), {"n": "3"}, "x") == {"n": 3, "s": 0.5}
    with pytest.raises(ParameterError, match="unknown parameter 'm' for x; valid parameters: n, s"):
        resolve((INT, OPEN), {"m": 1}, "x")


def test_check_seed():
    a, b = check_seed(0), check_seed(np.int64(0))
    assert a.randint(1000) == b.randint(1000)
    assert check_seed(MAX_SEED).rand() >= 0
    rs = np.random.RandomState(1)
    assert check_seed(rs) is rs and isinstance(check_seed(None), np.random.RandomState)
    for bad, match in ((-1, "out of range"), (MAX_SEED + 1, "out of range"), (1.0, "must be None"),
                       (True, "must be None"), (np.random.default_rng(0), "Generator")):
        with pytest.raises(ParameterError, match=match):
            check_seed(bad)
    with pytest.raises(ParameterError, match="--seed = -1"):
        check_seed(-1, "--seed")
