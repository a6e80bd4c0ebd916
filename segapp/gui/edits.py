"""Typed edits the canvas emits: what the user did, in full-image pixel coordinates."""

from __future__ import annotations

from dataclasses import dataclass

from segapp.core.constraints import Kind

LINK_KINDS = (Kind.MUST_LINK, Kind.CANNOT_LINK)
KINDS = tuple(Kind)


@dataclass(frozen=True)
class LinkEdit:
    """A must-link or cannot-link drawn from pixel (r1, c1) to pixel (r2, c2)."""

    kind: str
    r1: int
    c1: int
    r2: int
    c2: int


@dataclass(frozen=True)
class BlockEdit:
    """A rectangle of label ``label``; ``bottom`` and ``right`` exclusive."""

    label: int
    top: int
    left: int
    bottom: int
    right: int


@dataclass(frozen=True)
class RegionEdit:
    """A region painted with the brush: a :class:`core.Block` with pixel runs."""

    block: object


@dataclass(frozen=True)
class EraseEdit:
    """Erase item ``index`` of ``kind`` (``'must_link'``, ``'cannot_link'`` or ``'blocks'``)."""

    kind: str
    index: int
