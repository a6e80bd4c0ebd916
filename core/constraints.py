"""User constraints in full-image pixel coordinates: links, blocks and their JSON file.

A link is ``(r1, c1, r2, c2)`` or ``(r1, c1, r2, c2, weight)`` with integer (row, column)
pixels and ``weight`` in (0, 1], the degree of belief (Wang & Davidson 2010, sec. 3.1).
A :class:`Block` is a labelled rectangle (``bottom``/``right`` exclusive, like slices) or a
labelled free-form region painted with the brush: pixel runs ``(row, c0, c1)`` (``c1``
exclusive) inside its bounding box. Every method gets both the same way.

Items remember the order they were made in (:attr:`Constraints.order`): where constraints
conflict, the constrained rounding lets the newest win. File format version 2 stores brush
regions as runs and the order; version 1 files (rectangles only, order = kind order) are read.

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
from enum import Enum
from pathlib import Path
from typing import Iterable

import numpy as np

from ._io import atomic_write_text
from .errors import ConstraintError


class Kind(str, Enum):
    """The three kinds of constraint, one spelling each: the value is the attribute of
    :class:`Constraints` (and the constraint file's key) holding them, :attr:`label` how a
    person reads it. A ``str``, so ``Kind.MUST_LINK == "must_link"``."""

    MUST_LINK = "must_link"
    CANNOT_LINK = "cannot_link"
    BLOCK = "blocks"

    def __str__(self) -> str:
        return self.value

    @property
    def label(self) -> str:
        """``'must-link'``, ``'cannot-link'`` or ``'block'``."""
        return {"must_link": "must-link", "cannot_link": "cannot-link", "blocks": "block"}[self.value]

FORMAT_VERSION = 2
READ_VERSIONS = (1, 2)
KINDS = ("must_link", "cannot_link", "blocks")
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
    """Pixels that the user says belong to segment ``label``: a rectangle or a brush region.

    Parameters
    ----------
    label : int
        User label (1-9 in the GUI); blocks with the same label must-link, different labels
        cannot-link.
    top, left, bottom, right : int
        Pixel bounds, ``bottom`` and ``right`` exclusive (a brush region's bounding box).
    runs : tuple of (row, c0, c1), optional
        A brush region: the pixels ``row, c0 <= column < c1`` of each run, inside the box.
        ``None``: the whole rectangle. Build one with :meth:`from_mask` or :meth:`from_runs`.
    """

    label: int
    top: int
    left: int
    bottom: int
    right: int
    runs: tuple | None = None

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
        if self.runs is not None:
            object.__setattr__(self, "runs", self._check_runs(self.runs))

    def _check_runs(self, runs) -> tuple:
        try:
            a = np.asarray(runs)
        except (ValueError, TypeError):
            a = np.zeros((0,))
        if a.ndim != 2 or a.shape[1] != 3 or len(a) == 0:
            raise ConstraintError("block runs must be a non-empty list of [row, c0, c1]")
        if a.dtype.kind not in "iu":
            raise ConstraintError("block runs must hold integers [row, c0, c1]")
        r, c0, c1 = a.T
        if (c1 <= c0).any():
            raise ConstraintError("a block run [row, c0, c1] is empty: c1 must exceed c0")
        if (r < self.top).any() or (r >= self.bottom).any() or (c0 < self.left).any() or (c1 > self.right).any():
            raise ConstraintError(f"a block run lies outside its box [{self.top}, {self.left}, "
                                  f"{self.bottom}, {self.right}]")
        return tuple(map(tuple, a.astype(np.int64).tolist()))

    @classmethod
    def from_runs(cls, label: int, runs) -> "Block":
        """A brush region from its runs ``(row, c0, c1)``; the box is their bounds."""
        a = np.asarray(runs)
        if a.ndim != 2 or a.shape[1] != 3 or len(a) == 0:
            raise ConstraintError("block runs must be a non-empty list of [row, c0, c1]")
        if a.dtype.kind not in "iu":
            raise ConstraintError("block runs must hold integers [row, c0, c1]")
        return cls(label, int(a[:, 0].min()), int(a[:, 1].min()), int(a[:, 0].max()) + 1, int(a[:, 2].max()), a)

    @classmethod
    def from_mask(cls, label: int, mask: np.ndarray, top: int = 0, left: int = 0) -> "Block":
        """A brush region from a boolean mask whose pixel (0, 0) is image pixel (top, left).

        Parameters
        ----------
        label : int
        mask : ndarray, shape (h, w), bool
        top, left : int
        """
        m = np.asarray(mask, bool)
        if m.ndim != 2 or not m.any():
            raise ConstraintError("a brush region needs a 2-D mask with at least one pixel")
        pad = np.zeros((m.shape[0], m.shape[1] + 2), np.int8)
        pad[:, 1:-1] = m
        d = np.diff(pad, axis=1)
        rows, starts = np.nonzero(d == 1)
        _, ends = np.nonzero(d == -1)
        return cls.from_runs(label, np.stack([rows + top, starts + left, ends + left], 1))

    @property
    def box(self) -> tuple[int, int, int, int]:
        return (self.top, self.left, self.bottom, self.right)

    @property
    def is_region(self) -> bool:
        """Painted with the brush (runs), not a rectangle."""
        return self.runs is not None

    def mask(self) -> np.ndarray:
        """The block's pixels inside its box, shape (bottom - top, right - left), bool."""
        m = np.zeros((self.bottom - self.top, self.right - self.left), bool)
        if self.runs is None:
            m[:] = True
            return m
        for r, c0, c1 in self.runs:
            m[r - self.top, c0 - self.left:c1 - self.left] = True
        return m

    @property
    def n_pixels(self) -> int:
        if self.runs is None:
            return (self.bottom - self.top) * (self.right - self.left)
        return int(sum(c1 - c0 for _, c0, c1 in self.runs))

    def contains(self, r: float, c: float) -> bool:
        """Whether pixel (r, c) (floats floored) belongs to the block."""
        r, c = int(np.floor(r)), int(np.floor(c))
        if not (self.top <= r < self.bottom and self.left <= c < self.right):
            return False
        return self.runs is None or any(rr == r and c0 <= c < c1 for rr, c0, c1 in self.runs)

    def to_dict(self) -> dict:
        if self.runs is None:
            return {"label": self.label, "box": list(self.box)}
        return {"label": self.label, "runs": [list(x) for x in self.runs]}


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
    """Must-links, cannot-links and labelled blocks (rectangles or brush regions) on one image.

    Parameters
    ----------
    must_link, cannot_link : sequence of (r1, c1, r2, c2[, weight])
    blocks : sequence of Block
    order : dict of str to sequence of int, optional
        The order the items were made in: for each kind (``'must_link'``, ``'cannot_link'``,
        ``'blocks'``) one distinct sequence number per item, smaller = older. Default: all
        must-links, then cannot-links, then blocks, each in list order.

    Notes
    -----
    Links are stored with an explicit weight (default 1); ``order`` is stored as ranks
    0..n-1. The object is immutable in spirit: the GUI builds a new one for each edit.
    """

    def __init__(self, must_link: Iterable = (), cannot_link: Iterable = (), blocks: Iterable = (),
                 order: dict | None = None):
        self.must_link = tuple(_link(x, Kind.MUST_LINK.label, i) for i, x in enumerate(_items(must_link, Kind.MUST_LINK)))
        self.cannot_link = tuple(_link(x, Kind.CANNOT_LINK.label, i)
                                 for i, x in enumerate(_items(cannot_link, Kind.CANNOT_LINK)))
        bl = []
        for i, b in enumerate(_items(blocks, "blocks")):
            if not isinstance(b, Block):
                raise ConstraintError(f"block #{i} must be a core.Block, got {type(b).__name__}")
            bl.append(b)
        self.blocks = tuple(bl)
        self.order = self._ranks(order)

    def _ranks(self, order) -> dict:
        sizes = {k: len(getattr(self, k)) for k in KINDS}
        if order is None:
            seq = np.arange(sum(sizes.values()))
        else:
            if not isinstance(order, dict) or set(order) - set(KINDS):
                raise ConstraintError(f"order must map kinds ({', '.join(KINDS)}) to lists of sequence numbers")
            parts = []
            for k in KINDS:
                v = list(_items(order.get(k, ()), f"order of {k}"))
                if len(v) != sizes[k]:
                    raise ConstraintError(f"order of {k} has {len(v)} sequence numbers for {sizes[k]} items")
                parts += [_check_int(x, f"order of {k}: sequence number", 0, MAX_COORD) for x in v]
            if len(set(parts)) != len(parts):
                raise ConstraintError("order: every item needs its own sequence number")
            seq = np.argsort(np.argsort(np.asarray(parts, np.int64), kind="stable"), kind="stable")
        out, at = {}, 0
        for k in KINDS:
            out[k] = tuple(int(x) for x in seq[at:at + sizes[k]])
            at += sizes[k]
        return out

    def sequence(self) -> list[tuple[str, int]]:
        """Every item as ``(kind, index)``, oldest first."""
        items = [(r, k, i) for k in KINDS for i, r in enumerate(self.order[k])]
        return [(k, i) for _r, k, i in sorted(items)]

    # -- basic protocol -------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.must_link) + len(self.cannot_link) + len(self.blocks)

    def __bool__(self) -> bool:
        return len(self) > 0

    def _key(self):
        return (self.must_link, self.cannot_link, self.blocks, tuple(self.order[k] for k in KINDS))

    def __eq__(self, other) -> bool:
        return isinstance(other, Constraints) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

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
            "blocks": [b.to_dict() for b in self.blocks],
            "order": {k: list(v) for k, v in self.order.items()},
        }

    def to_json(self, path: str | os.PathLike | None = None) -> str:
        """Return the JSON text; when ``path`` is given also write it atomically."""
        text = json.dumps(self.to_dict(), indent=1)
        if path is not None:
            atomic_write_text(path, text)
        return text

    @classmethod
    def from_dict(cls, data) -> "Constraints":
        """From the dict of a constraint file, version 1 (rectangles) or 2 (also brush regions
        as ``"runs"`` and the creation ``"order"``)."""
        if not isinstance(data, dict):
            raise ConstraintError("constraint file must hold a JSON object with keys version, must_link, cannot_link, blocks")
        version = data.get("version", FORMAT_VERSION)
        if isinstance(version, bool) or version not in READ_VERSIONS:
            raise ConstraintError(f"constraint file version {_short(version)} is not supported "
                                  f"(expected one of {', '.join(map(str, READ_VERSIONS))})")
        allowed = {"version", "must_link", "cannot_link", "blocks"} | ({"order"} if version >= 2 else set())
        extra = sorted(set(data) - allowed)
        if extra:
            raise ConstraintError(f"unknown key {extra[0]!r} in constraint file; valid keys: {', '.join(sorted(allowed))}")
        for key in ("must_link", "cannot_link", "blocks"):
            if key in data and not isinstance(data[key], list):
                raise ConstraintError(f"{key!r} must be a list")
        blocks = [_block_from_dict(b, i, version) for i, b in enumerate(data.get("blocks", []))]
        order = data.get("order")
        if order is not None and not isinstance(order, dict):
            raise ConstraintError("'order' must be an object {kind: [sequence numbers]}")
        return cls(data.get("must_link", []), data.get("cannot_link", []), blocks, order=order)

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
        for kind, links in ((Kind.MUST_LINK.label, self.must_link), (Kind.CANNOT_LINK.label, self.cannot_link)):
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
                if b.contains(r, c):
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
                if a.label != b.label and _overlap(a, b):
                    out.append(f"blocks with labels {a.label} and {b.label} overlap")
        return out


def _overlap(a: Block, b: Block) -> bool:
    """Whether two blocks share a pixel."""
    top, left = max(a.top, b.top), max(a.left, b.left)
    bottom, right = min(a.bottom, b.bottom), min(a.right, b.right)
    if top >= bottom or left >= right:
        return False
    if a.runs is None and b.runs is None:
        return True
    ma = a.mask()[top - a.top:bottom - a.top, left - a.left:right - a.left]
    mb = b.mask()[top - b.top:bottom - b.top, left - b.left:right - b.left]
    return bool((ma & mb).any())


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
