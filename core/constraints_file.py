"""Reading a constraint file safely: size and number limits, strict JSON, blocks by version."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from .block import MAX_COORD, Block, _check_int, _short
from ._io import open_to_read
from .errors import ConstraintError

MAX_DIGITS = 12              # integers in a constraint file
MAX_FILE_BYTES = 64 * 2**20  # about two million links


def _block_from_dict(b, i: int, version: int) -> Block:
    shape = "{\"label\": int, \"box\": [top, left, bottom, right]}"
    if version >= 2:
        shape += " or {\"label\": int, \"runs\": [[row, c0, c1], ...]}"
    if not isinstance(b, dict) or "label" not in b or ("box" in b) == ("runs" in b and version >= 2):
        raise ConstraintError(f"block #{i} must be an object {shape}")
    valid = {"label", "box"} | ({"runs"} if version >= 2 else set())
    extra = sorted(set(b) - valid)
    if extra:
        raise ConstraintError(f"block #{i} has an unknown key {_short(extra[0])}; valid keys: {', '.join(sorted(valid))}")
    if "runs" in b:
        runs = b["runs"]
        if not isinstance(runs, list) or not runs or not all(isinstance(x, list) and len(x) == 3 for x in runs):
            raise ConstraintError(f"block #{i} runs must be a non-empty list of [row, c0, c1]")
        cells = [_check_int(v, f"block #{i} run", 0, MAX_COORD) for x in runs for v in x]
        try:
            return Block.from_runs(b["label"], np.asarray(cells, np.int64).reshape(-1, 3))
        except ConstraintError as e:
            raise ConstraintError(f"block #{i}: {e}") from None
    box = b["box"]
    if not isinstance(box, list) or len(box) != 4:
        raise ConstraintError(f"block #{i} box must be [top, left, bottom, right]")
    return Block(b["label"], *box)


def _looks_like_json(s: str) -> bool:
    t = s.strip()
    try:
        if len(s) < 4096 and os.path.isfile(s):
            return False
    except (OSError, ValueError):
        pass
    return not t or t[0] in '{["-0123456789' or t in ("null", "true", "false")


def _read_text(p: Path) -> str:
    with open_to_read(p, ConstraintError, "constraint file") as f:
        size = os.fstat(f.fileno()).st_size
        if size > MAX_FILE_BYTES:
            raise ConstraintError(f"constraint file {p} is {size:,} bytes, more than the limit of "
                                  f"{MAX_FILE_BYTES:,}")
        try:
            data = f.read()
        except OSError as e:
            raise ConstraintError(f"cannot read constraint file {p}: {e.strerror or e}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ConstraintError(f"constraint file {p} is not UTF-8 text (byte {e.start})") from None


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ConstraintError(f"number {_short(text)} has {len(text.lstrip('-'))} digits; constraint "
                              f"files hold pixel coordinates and labels of at most {MAX_DIGITS} digits")
    return int(text)


def _json_float(text: str) -> float:
    v = float(text)
    if not np.isfinite(v):
        raise ConstraintError(f"number {_short(text)} is too large")
    return v


def _json_constant(name: str):
    raise ConstraintError(f"{name} is not a number a constraint file may hold")


def _parse_json(text: str, where: str):
    if len(text) > MAX_FILE_BYTES:
        raise ConstraintError(f"{where} is {len(text):,} characters, more than the limit of {MAX_FILE_BYTES:,}")
    try:
        return json.loads(text, parse_int=_json_int, parse_float=_json_float, parse_constant=_json_constant)
    except json.JSONDecodeError as e:
        raise ConstraintError(f"malformed JSON in {where}: {e.msg} at line {e.lineno}, column {e.colno}") from None
    except RecursionError:
        raise ConstraintError(f"{where} is nested too deeply to be a constraint file "
                              "(lists inside lists thousands of levels deep)") from None
    except ConstraintError as e:
        raise ConstraintError(f"{where}: {e}") from None
