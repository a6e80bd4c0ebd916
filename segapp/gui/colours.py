"""Segment colours that stay with "the same" segment (no Qt).

Each result's segments get palette slots: a segment holding a labelled block (rectangle or
brush region) takes that label's slot (label L -> slot L - 1, the colour its block is drawn
in); every other segment takes the free slot it overlaps most in the previous result,
matched by :func:`scipy.optimize.linear_sum_assignment` on an overlap table counted on a
fixed grid of :data:`GRID` x :data:`GRID` image points, so the work per result is the same
for a Berkeley image and a 12 MP photo (median 0.4 ms per result on a Berkeley-sized map,
on the GUI thread; a few ms when a new node map first needs its node sizes).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from segapp.core.graph.representation import block_nodes
from segapp.core.render import PALETTE  # noqa: F401 - re-exported: the window's colours

# The palette lives in core.render (exports use it too); slots 0-8 are block labels 1-9.
GRID = 96
SIZES_KEPT = 10  # node maps whose node sizes are kept (the committed result's, a drag's previews', the compare view's tiles')
# The human ground truth's outline: black, a colour no segment (palette slot) is drawn in.
GROUND_TRUTH_OUTLINE = (0, 0, 0)
ERROR_TEXT = "#b00020"  # status-bar errors and the autosave sign


def label_slot(label: int) -> int:
    """The palette slot of block label ``label`` (1-based)."""
    return (int(label) - 1) % len(PALETTE)


def label_rgb(label: int) -> tuple[int, int, int]:
    return tuple(int(v) for v in PALETTE[label_slot(label)])


@dataclass(frozen=True)
class SegmentInfo:
    """What the legend shows of one result.

    Attributes
    ----------
    slots : ndarray, shape (K,), int
        Palette slot of each segment.
    share : ndarray, shape (K,), float
        Fraction of the image's pixels in each segment.
    labels : tuple of tuple of int
        The block labels each segment holds.
    """

    slots: np.ndarray
    share: np.ndarray
    labels: tuple

    @property
    def rgb(self) -> np.ndarray:
        """(K, 3) uint8 colour of each segment."""
        return PALETTE[self.slots]

    @property
    def empty(self) -> list[int]:
        """Indices of the segments with no pixel."""
        return [int(k) for k in np.flatnonzero(self.share == 0)]


class SegmentColours:
    """Matches each new result's segments to the previous result's colours."""

    def __init__(self):
        self._prev: np.ndarray | None = None  # (GRID, GRID) slot of each grid point
        # map key -> working pixels per node, the newest few; shared with the followers, so a
        # preview's map (one per drag) is counted once, not once per preview
        self._sizes: OrderedDict = OrderedDict()

    def reset(self) -> None:
        """A new image: nothing to stay consistent with."""
        self._prev = None

    def follower(self) -> "SegmentColours":
        """A fresh matcher whose next result takes the colours of this one's last result (the
        compare view's tiles in the canvas's colours); this one is left as it is."""
        fresh = SegmentColours()
        fresh._prev = self._prev
        fresh._sizes = self._sizes
        return fresh

    def assign(self, result, blocks=()) -> SegmentInfo:
        """Slots, pixel shares and block labels of ``result``'s segments.

        Parameters
        ----------
        result : segapp.worker.results.SegmentResult
            With its node map.
        blocks : sequence of core.Block
            Oldest first: where blocks of two labels fall in one segment the newest names it.
        """
        nm, k = result.node_map, int(result.n_segments)
        labels = np.asarray(result.node_labels)
        n_slots = len(PALETTE)
        held: list[list[int]] = [[] for _ in range(k)]
        fixed = np.full(k, -1)
        for b in blocks:
            nodes = block_nodes(nm.node_map, nm.factor, b)
            s = int(np.bincount(labels[nodes], minlength=k).argmax())
            if b.label not in held[s]:
                held[s].append(b.label)
            fixed[s] = label_slot(b.label)
        grid = self._grid_labels(nm, labels)
        free = np.flatnonzero(fixed < 0)
        slots = fixed.copy()
        if len(free):
            open_slots = np.setdiff1d(np.arange(n_slots), fixed[fixed >= 0])
            overlap = np.zeros((k, n_slots))
            if self._prev is not None:
                np.add.at(overlap, (grid.ravel(), self._prev.ravel()), 1.0)
            # most overlap first; between equals, the lowest slot (eps * slots sums below 1)
            cost = -overlap[np.ix_(free, open_slots)] + np.arange(len(open_slots)) / (n_slots * k + 1)
            rows, cols = linear_sum_assignment(cost)
            slots[free[rows]] = open_slots[cols]
        self._prev = slots[grid]
        return SegmentInfo(slots, self._share(result, labels, k), tuple(tuple(h) for h in held))

    def _grid_labels(self, nm, labels) -> np.ndarray:
        h, w = nm.shape
        rows = np.linspace(0, h - 1, GRID).astype(int) // nm.factor
        cols = np.linspace(0, w - 1, GRID).astype(int) // nm.factor
        return labels[nm.node_map[np.ix_(rows, cols)]]

    def _share(self, result, labels, k) -> np.ndarray:
        nm = result.node_map
        sizes = self._sizes.get(nm.key)
        if sizes is None:
            sizes = self._sizes[nm.key] = np.bincount(nm.node_map.ravel(), minlength=len(labels)).astype(float)
            while len(self._sizes) > SIZES_KEPT:
                self._sizes.popitem(last=False)
        else:
            self._sizes.move_to_end(nm.key)
        per = np.bincount(labels, weights=sizes, minlength=k)[:k]
        return per / max(per.sum(), 1.0)
