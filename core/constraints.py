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
[0, :data:`~core.block.MAX_COORD`], block labels integers in [1, :data:`~core.block.MAX_LABEL`],
weights finite and in (0, 1]. A constraint file (:mod:`core.constraints_file`) is at most
:data:`~core.constraints_file.MAX_FILE_BYTES` long, its integers at most
:data:`~core.constraints_file.MAX_DIGITS` digits, nested at most as deep as the JSON parser allows; ``NaN`` and
``Infinity`` are refused. Each problem is a :class:`~core.errors.ConstraintError` naming it.
"""

from __future__ import annotations

import json
import os
from enum import Enum
from pathlib import Path
from typing import Iterable

import numpy as np

from ._io import atomic_write_text
from .block import MAX_COORD, Block, _check_int, _short  # noqa: F401 - Block is part of this module's API
from .constraints_file import _block_from_dict, _looks_like_json, _parse_json, _read_text
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
KINDS = tuple(Kind)  # in file order


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


