"""Labelled blocks: rectangles and brush regions (pixel runs) the user paints with a label."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import ConstraintError

MAX_COORD = 2**31 - 1        # pixel coordinates: far beyond any image segapp can load
MAX_LABEL = 255              # block labels 1..255 (the GUI uses 1-9)


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
