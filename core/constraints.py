"""User constraints in full-image pixel coordinates: links, blocks and their JSON file.

A link is ``(r1, c1, r2, c2)`` or ``(r1, c1, r2, c2, weight)`` with integer (row, column)
pixels and ``weight`` in (0, 1], the degree of belief (Wang & Davidson 2010, sec. 3.1).
A :class:`Block` is a labelled rectangle; ``bottom``/``right`` are exclusive, like slices.

Every number is bounded where it enters: pixel coordinates are integers in
[0, :data:`MAX_COORD`], block labels integers in [1, :data:`MAX_LABEL`], weights finite and in
(0, 1]. A constraint file is at most :data:`MAX_FILE_BYTES` long, its integers at most
:data:`MAX_DIGITS` digits, nested at most as deep as the JSON parser allows; ``NaN`` and
``Infinity`` are refused. Each problem is a :class:`~core.errors.ConstraintError` naming it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np

from ._io import atomic_write_text
from .errors import ConstraintError

FORMAT_VERSION = 1
MAX_COORD = 2**31 - 1        # pixel coordinates: far beyond any image segapp can load
MAX_LABEL = 255              # block labels 1..255 (the GUI uses 1-9)
MAX_DIGITS = 12              # integers in a constraint file
MAX_FILE_BYTES = 64 * 2**20  # about two million links


def _check_int(v, what: str, low: int, high: int) -> int:
    if isinstance(v, bool) or not (isinstance(v, (int, np.integer)) or (
            isinstance(v, (float, np.floating)) and float(v).is_integer())):
        raise ConstraintError(f"{what} must be an integer, got {_short(v)}")
    v = int(v)
    if not low <= v <= high:
        raise ConstraintError(f"{what} {_short(v)} is outside [{low}, {high}]")
    return v


def _short(v) -> str:
    text = repr(v)
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"


@dataclass(frozen=True)
class Block:
    """A rectangle of pixels that the user says belong to segment ``label``.

    Parameters
    ----------
    label : int
        User label (1-9 in the GUI); blocks with the same label must-link, different labels
        cannot-link.
    top, left, bottom, right : int
        Pixel bounds, ``bottom`` and ``right`` exclusive.
    """

    label: int
    top: int
    left: int
    bottom: int
    right: int

    def __post_init__(self):
        for name in ("label", "top", "left", "bottom", "right"):
            v = getattr(self, name)
            if isinstance(v, (float, np.floating)):
                raise ConstraintError(f"block {name} must be an integer, got {_short(v)}")
            low, high = (1, MAX_LABEL) if name == "label" else (0, MAX_COORD)
            object.__setattr__(self, name, _check_int(v, f"block {name}", low, high))
        if self.bottom <= self.top or self.right <= self.left:
            raise ConstraintError(
                f"block box [{self.top}, {self.left}, {self.bottom}, {self.right}] is empty: "
                "bottom must exceed top and right must exceed left"
            )

    @property
    def box(self) -> tuple[int, int, int, int]:
        return (self.top, self.left, self.bottom, self.right)


def _items(seq, name: str):
    if seq is None:
        return ()
    if isinstance(seq, (str, bytes, dict)) or not hasattr(seq, "__iter__"):
        raise ConstraintError(f"{name} must be a list, got {type(seq).__name__}")
    return seq


def _link(item, kind: str, index: int) -> tuple:
    try:
        seq = list(item)
    except TypeError:
        raise ConstraintError(f"{kind} #{index} must be a list [r1, c1, r2, c2] or [r1, c1, r2, c2, weight], got {item!r}") from None
    if len(seq) not in (4, 5):
        raise ConstraintError(f"{kind} #{index} must have 4 or 5 numbers [r1, c1, r2, c2(, weight)], got {len(seq)}")
    pts = [_check_int(v, f"{kind} #{index} pixel coordinate", 0, MAX_COORD) for v in seq[:4]]
    w = 1.0
    if len(seq) == 5:
        v = seq[4]
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise ConstraintError(f"{kind} #{index} has a non-numeric weight {_short(v)}")
        w = float(v)
        if not (0.0 < w <= 1.0):
            raise ConstraintError(f"{kind} #{index} weight {_short(w)} is outside (0, 1]")
    return (*pts, w)


class Constraints:
    """Must-links, cannot-links and labelled blocks on one image.

    Parameters
    ----------
    must_link, cannot_link : sequence of (r1, c1, r2, c2[, weight])
    blocks : sequence of Block

    Notes
    -----
    Links are stored with an explicit weight (default 1). The object is immutable in spirit:
    the GUI builds a new one for each edit.
    """

    def __init__(self, must_link: Iterable = (), cannot_link: Iterable = (), blocks: Iterable = ()):
        self.must_link = tuple(_link(x, "must-link", i) for i, x in enumerate(_items(must_link, "must_link")))
        self.cannot_link = tuple(_link(x, "cannot-link", i) for i, x in enumerate(_items(cannot_link, "cannot_link")))
        bl = []
        for i, b in enumerate(_items(blocks, "blocks")):
            if not isinstance(b, Block):
                raise ConstraintError(f"block #{i} must be a core.Block, got {type(b).__name__}")
            bl.append(b)
        self.blocks = tuple(bl)

    # -- basic protocol -------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.must_link) + len(self.cannot_link) + len(self.blocks)

    def __bool__(self) -> bool:
        return len(self) > 0

    def __eq__(self, other) -> bool:
        return isinstance(other, Constraints) and (
            self.must_link, self.cannot_link, self.blocks
        ) == (other.must_link, other.cannot_link, other.blocks)

    def __hash__(self):
        return hash((self.must_link, self.cannot_link, self.blocks))

    def __repr__(self) -> str:
        return (f"Constraints(must_link={len(self.must_link)}, cannot_link={len(self.cannot_link)}, "
                f"blocks={len(self.blocks)})")

    # -- JSON -----------------------------------------------------------------------
    def to_dict(self) -> dict:
        def enc(links):
            return [list(l[:4]) if l[4] == 1.0 else list(l[:4]) + [l[4]] for l in links]

        return {
            "version": FORMAT_VERSION,
            "must_link": enc(self.must_link),
            "cannot_link": enc(self.cannot_link),
            "blocks": [{"label": b.label, "box": list(b.box)} for b in self.blocks],
        }

    def to_json(self, path: str | os.PathLike | None = None) -> str:
        """Return the JSON text; when ``path`` is given also write it atomically."""
        text = json.dumps(self.to_dict(), indent=1)
        if path is not None:
            atomic_write_text(path, text)
        return text

    @classmethod
    def from_dict(cls, data) -> "Constraints":
        if not isinstance(data, dict):
            raise ConstraintError("constraint file must hold a JSON object with keys version, must_link, cannot_link, blocks")
        allowed = {"version", "must_link", "cannot_link", "blocks"}
        extra = sorted(set(data) - allowed)
        if extra:
            raise ConstraintError(f"unknown key {extra[0]!r} in constraint file; valid keys: {', '.join(sorted(allowed))}")
        version = data.get("version", FORMAT_VERSION)
        if isinstance(version, bool) or version != FORMAT_VERSION:
            raise ConstraintError(f"constraint file version {_short(version)} is not supported (expected {FORMAT_VERSION})")
        for key in ("must_link", "cannot_link", "blocks"):
            if key in data and not isinstance(data[key], list):
                raise ConstraintError(f"{key!r} must be a list")
        blocks = []
        for i, b in enumerate(data.get("blocks", [])):
            if not isinstance(b, dict) or "label" not in b or "box" not in b:
                raise ConstraintError(f"block #{i} must be an object {{\"label\": int, \"box\": [top, left, bottom, right]}}")
            extra = sorted(set(b) - {"label", "box"})
            if extra:
                raise ConstraintError(f"block #{i} has an unknown key {_short(extra[0])}; valid keys: box, label")
            box = b["box"]
            if not isinstance(box, list) or len(box) != 4:
                raise ConstraintError(f"block #{i} box must be [top, left, bottom, right]")
            blocks.append(Block(b["label"], *box))
        return cls(data.get("must_link", []), data.get("cannot_link", []), blocks)

    @classmethod
    def from_json(cls, path_or_text: str | os.PathLike) -> "Constraints":
        """Read constraints from a JSON file path or from JSON text.

        A string is read as JSON text when it names no existing file and looks like JSON
        (blank, or starting with ``{``, ``[``, ``"``, a digit, ``-``, ``null``, ``true`` or
        ``false``); otherwise it is a path.
        """
        if isinstance(path_or_text, os.PathLike) or (
            isinstance(path_or_text, str) and not _looks_like_json(path_or_text)
        ):
            p = Path(path_or_text)
            text = _read_text(p)
            where = str(p)
        elif isinstance(path_or_text, str):
            text = path_or_text
            where = "constraint text"
        else:
            raise ConstraintError(f"from_json takes a file path or JSON text, got {type(path_or_text).__name__}")
        return cls.from_dict(_parse_json(text, where))

    # -- checks ---------------------------------------------------------------------
    def validate(self, shape: tuple[int, int]) -> None:
        """Raise :class:`ConstraintError` if any link or block lies outside an image of ``shape``."""
        h, w = int(shape[0]), int(shape[1])
        for kind, links in (("must-link", self.must_link), ("cannot-link", self.cannot_link)):
            for i, (r1, c1, r2, c2, _w) in enumerate(links):
                for r, c in ((r1, c1), (r2, c2)):
                    if not (0 <= r < h and 0 <= c < w):
                        raise ConstraintError(
                            f"{kind} #{i} endpoint (row {r}, column {c}) is outside the {h}x{w} image"
                        )
        for i, b in enumerate(self.blocks):
            if b.top < 0 or b.left < 0 or b.bottom > h or b.right > w:
                raise ConstraintError(
                    f"block #{i} box [{b.top}, {b.left}, {b.bottom}, {b.right}] is outside the {h}x{w} image"
                )

    def contradictions(self) -> list[str]:
        """Describe every cannot-link whose ends are joined by must-links (pixel level).

        Must-links are transitive: a chain of must-links joins its pixels. Pixels of blocks
        with the same label are joined too; a cannot-link inside such a group, or two blocks
        with different labels that overlap, is a contradiction.
        """
        parent: dict = {}

        def find(x):
            parent.setdefault(x, x)
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        def union(a, b):
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[ra] = rb

        for r1, c1, r2, c2, _ in self.must_link:
            union((r1, c1), (r2, c2))
        label_root = {}
        for b in self.blocks:
            key = ("label", b.label)
            union(("block", b), key)
            label_root[b.label] = key
        out = []
        # Links touching a block join the block's label group.
        def group(r, c):
            for b in self.blocks:
                if b.top <= r < b.bottom and b.left <= c < b.right:
                    union((r, c), ("label", b.label))
            return find((r, c))

        for r1, c1, r2, c2, _ in self.must_link:
            group(r1, c1), group(r2, c2)
        for i, (r1, c1, r2, c2, _) in enumerate(self.cannot_link):
            if group(r1, c1) == group(r2, c2):
                out.append(
                    f"cannot-link #{i} from (row {r1}, column {c1}) to (row {r2}, column {c2}) "
                    "joins pixels that must-links or same-label blocks already put together"
                )
        for i, a in enumerate(self.blocks):
            for b in self.blocks[i + 1:]:
                if a.label != b.label and a.top < b.bottom and b.top < a.bottom and a.left < b.right and b.left < a.right:
                    out.append(f"blocks with labels {a.label} and {b.label} overlap")
        return out


def _looks_like_json(s: str) -> bool:
    t = s.strip()
    try:
        if len(s) < 4096 and os.path.isfile(s):
            return False
    except (OSError, ValueError):
        pass
    return not t or t[0] in '{["-0123456789' or t in ("null", "true", "false")


def _read_text(p: Path) -> str:
    try:
        if p.is_dir():
            raise ConstraintError(f"{p} is a folder, not a constraint file")
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ConstraintError(f"constraint file {p} is {size:,} bytes, more than the limit of "
                                  f"{MAX_FILE_BYTES:,}")
        return p.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ConstraintError(f"constraint file not found: {p}") from None
    except PermissionError:
        raise ConstraintError(f"no permission to read constraint file {p}") from None
    except UnicodeDecodeError as e:
        raise ConstraintError(f"constraint file {p} is not UTF-8 text (byte {e.start})") from None
    except OSError as e:
        raise ConstraintError(f"cannot read constraint file {p}: {e.strerror or e}") from None


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
