"""Links and blocks on the canvas, drawn incrementally and hit-tested by geometry.

Links of one kind are drawn in chunks of at most :data:`CHUNK`, each a handful of path
items painted by Qt itself; an edit rebuilds one chunk, so it costs the same with ten links
or ten thousand. Rebuilds wait for the event loop (the application's queue of view steps,
:mod:`.turns`: an edit's ahead of the views of a result) and run within a time budget per
turn.
Beyond :data:`FULL_DETAIL` links, painting them one by one would cost the GUI thread
50-150 ms per repaint, so they are drawn as one picture rendered in a thread
(:mod:`.link_raster`). Constraints the shown result does not honour are drawn dashed.
"""

from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsRectItem

from segapp.core.constraints import Kind
from . import turns
from .colours import label_rgb
from .edits import LINK_KINDS
from .link_raster import LinkRaster

CHUNK = 128  # links per chunk: an edit redraws at most this many
BUDGET_S = 0.008  # drawing time per event-loop turn
FULL_DETAIL = 1000  # up to this many links: path items with outlines and end dots; beyond, a raster
COLORS = {Kind.MUST_LINK: (0, 200, 70), Kind.CANNOT_LINK: (230, 30, 30)}
BLACK = (0, 0, 0)
DOT = 1e-3  # end dots are round-capped segments this long (image pixels)


def _pen(color, width, dashed=False, round_cap=False) -> QPen:
    pen = QPen(QColor(*color))
    pen.setWidthF(width)
    pen.setCosmetic(True)  # screen pixels at any zoom
    pen.setCapStyle(Qt.RoundCap if round_cap else Qt.FlatCap)  # round caps cost 8x: only for dots
    if dashed:
        pen.setStyle(Qt.DashLine)
    return pen


class _Chunk:
    """Up to CHUNK links of one kind: outline, solid line, dashed line, end dots (path items
    painted by Qt, created on the first rebuild; none while the raster draws the links)."""

    def __init__(self, owner, ids=()):
        self.owner, self.ids = owner, set(ids)
        self.items = []

    def rebuild(self) -> None:
        owner = self.owner
        if not owner.detail:
            return self.remove()
        if not self.items:
            c = owner.color
            for z, pen in ((10, _pen(BLACK, 6)), (11, _pen(c, 3)), (11, _pen(c, 3, dashed=True)),
                           (12, _pen(BLACK, 11, round_cap=True)), (13, _pen(c, 8, round_cap=True))):
                it = QGraphicsPathItem()
                it.setPen(pen)
                it.setZValue(z)
                owner.view.addItem(it, ignoreBounds=True)
                self.items.append(it)
        geom, bad = owner.geom, owner.bad
        lines, solid, dashed, dots = (QPainterPath() for _ in range(4))
        for i in self.ids:
            x1, y1, x2, y2 = geom[i]
            for path in (lines, dashed if i in bad else solid):
                path.moveTo(x1, y1)
                path.lineTo(x2, y2)
            for x, y in ((x1, y1), (x2, y2)):  # flat line ends hide under round dots
                dots.moveTo(x, y)
                dots.lineTo(x + DOT, y)
        for it, path in zip(self.items, (lines, solid, dashed, dots, dots)):
            it.setPath(path)

    def remove(self) -> None:
        for it in self.items:
            self.owner.view.removeItem(it)
        self.items = []


class _Links:
    """The links of one kind: index -> stable id, geometry by id, chunk by id."""

    def __init__(self, view, color):
        self.view, self.color = view, color
        self.detail = True
        self.ids: list[int] = []
        self.geom: dict[int, tuple] = {}
        self.chunk_of: dict[int, _Chunk] = {}
        self.chunks: list[_Chunk] = []
        self.bad: set[int] = set()
        self._segments = None

    def insert(self, index, item, new_id, dirty) -> None:
        r1, c1, r2, c2 = item[:4]
        self.geom[new_id] = (c1 + 0.5, r1 + 0.5, c2 + 0.5, r2 + 0.5)  # pixel centres, x = column
        self.ids.insert(index, new_id)
        if not self.chunks or len(self.chunks[-1].ids) >= CHUNK:
            self.chunks.append(_Chunk(self))
        chunk = self.chunks[-1]
        chunk.ids.add(new_id)
        self.chunk_of[new_id] = chunk
        dirty.add(chunk)
        self._segments = None

    def remove(self, index, dirty) -> None:
        i = self.ids.pop(index)
        chunk = self.chunk_of.pop(i)
        chunk.ids.discard(i)
        self.geom.pop(i)
        self.bad.discard(i)
        if not chunk.ids and chunk is not self.chunks[-1]:
            self.chunks.remove(chunk)
            chunk.remove()
            dirty.discard(chunk)
        else:
            dirty.add(chunk)
        self._segments = None

    def reset(self, items, first_id: int, dirty) -> None:
        """Replace every link by ``items``; their ids are ``first_id``, ``first_id + 1``, ..."""
        for chunk in self.chunks:
            chunk.remove()
            dirty.discard(chunk)
        self.ids = list(range(first_id, first_id + len(items)))
        self.geom = {i: (c1 + 0.5, r1 + 0.5, c2 + 0.5, r2 + 0.5)
                     for i, (r1, c1, r2, c2, *_w) in zip(self.ids, items)}
        self.chunks = [_Chunk(self, self.ids[k:k + CHUNK]) for k in range(0, len(self.ids), CHUNK)]
        self.chunk_of = {i: chunk for chunk in self.chunks for i in chunk.ids}
        self.bad = set()
        self._segments = None
        dirty.update(self.chunks)

    def set_honoured(self, flags: np.ndarray, dirty) -> None:
        new = {self.ids[i] for i in np.flatnonzero(~flags)}
        for i in new ^ self.bad:
            dirty.add(self.chunk_of[i])
        self.bad = new

    def segments(self) -> np.ndarray:
        """(n, 4) x1, y1, x2, y2 in index order (cached until the next edit)."""
        if self._segments is None:
            self._segments = np.array([self.geom[i] for i in self.ids], float).reshape(-1, 4)
        return self._segments


class _BlockMark:
    """One block: a tinted rectangle or brush region with its label; dashed when not honoured."""

    def __init__(self, block):
        self.block, self.bad, self.items = block, False, None

    def rebuild(self, view) -> None:
        b = self.block
        col = label_rgb(b.label)
        if self.items is None:
            shape = QGraphicsPathItem(_outline(b)) if b.is_region else \
                QGraphicsRectItem(QRectF(b.left, b.top, b.right - b.left, b.bottom - b.top))
            shape.setBrush(pg.mkBrush(*col, 110 if b.is_region else 70))
            shape.setZValue(8)
            txt = pg.TextItem(str(b.label), color=(0, 0, 0), fill=pg.mkBrush(*col, 230), anchor=(0, 1))
            txt.setPos(QPointF(b.left, b.top))
            txt.setZValue(9)
            for it in (shape, txt):
                view.addItem(it, ignoreBounds=True)
            self.items = (shape, txt)
        self.items[0].setPen(_pen(col, 2, dashed=self.bad))

    def remove(self, view) -> None:
        for it in self.items or ():
            view.removeItem(it)


def _outline(block) -> QPainterPath:
    """The outline of a brush region: the union of its runs (pixel edges)."""
    path = QPainterPath()
    for r, c0, c1 in block.runs:
        path.addRect(QRectF(c0, r, c1 - c0, 1))
    return path.simplified()


class ConstraintLayer(QObject):
    """Every link and block of the model on ``view``; ``drawn`` when all pending drawing is done."""

    drawn = Signal()

    def __init__(self, view):
        super().__init__()
        self.view = view
        self.links = {k: _Links(view, COLORS[k]) for k in LINK_KINDS}
        self.blocks: list[_BlockMark] = []
        self._next_id = 0
        self._dirty: set = set()
        self.raster = LinkRaster(view, COLORS)
        self.raster.source = lambda: {k: (v.ids, v.geom, v.bad) for k, v in self.links.items()}
        self._turns = turns.shared()

    @property
    def pending(self) -> bool:
        return bool(self._dirty) or self.raster.pending

    # -- edits ----------------------------------------------------------------------
    def insert(self, kind: str, index: int, item) -> None:
        if kind == Kind.BLOCK:
            mark = _BlockMark(item)
            self.blocks.insert(index, mark)
            self._dirty.add(mark)
        else:
            self.links[kind].insert(index, item, self._next_id, self._dirty)
            self._next_id += 1
        self._schedule(first=True)

    def remove(self, kind: str, index: int) -> None:
        if kind == Kind.BLOCK:
            mark = self.blocks.pop(index)
            self._dirty.discard(mark)
            mark.remove(self.view)
        else:
            self.links[kind].remove(index, self._dirty)
        self._schedule(first=True)

    def reset(self, items: dict) -> None:
        """Replace everything by ``items`` (kind -> sequence); drawn over the next turns."""
        for kind, links in self.links.items():
            links.reset(items[kind], self._next_id, self._dirty)
            self._next_id += len(items[kind])
        for mark in self.blocks:
            self._dirty.discard(mark)
            mark.remove(self.view)
        self.blocks = [_BlockMark(b) for b in items[Kind.BLOCK]]
        self._dirty.update(self.blocks)
        self._schedule(first=True)

    def set_honoured(self, honoured: dict) -> None:
        """Draw dashed what the result does not honour (arrays aligned with the current items)."""
        for kind, links in self.links.items():
            flags = np.asarray(honoured.get(kind, ()), bool)
            if len(flags) == len(links.ids):
                links.set_honoured(flags, self._dirty)
        flags = np.asarray(honoured.get(Kind.BLOCK, ()), bool)
        if len(flags) == len(self.blocks):
            for mark, ok in zip(self.blocks, flags):
                if mark.bad == bool(ok):
                    mark.bad = not ok
                    self._dirty.add(mark)
        self._schedule()

    def dashed(self, kind: str) -> list[int]:
        """Indices of the items of ``kind`` drawn dashed (what the views show, for tests)."""
        if kind == Kind.BLOCK:
            return [i for i, m in enumerate(self.blocks) if m.bad]
        links = self.links[kind]
        return [i for i, lid in enumerate(links.ids) if lid in links.bad]

    # -- hit-testing ------------------------------------------------------------------
    def hit(self, x: float, y: float, tolerance: float) -> tuple[str, int] | None:
        """The link nearest to (x, y) within ``tolerance`` (view units), else the topmost block
        containing the point: ``(kind, index)`` or None."""
        best, best_d = None, tolerance
        p = np.array([x, y])
        for kind, links in self.links.items():
            s = links.segments()
            if not len(s):
                continue
            a, ab = s[:, :2], s[:, 2:] - s[:, :2]
            t = np.clip(np.einsum("ij,ij->i", p - a, ab) / np.maximum(np.einsum("ij,ij->i", ab, ab), 1e-12), 0, 1)
            d = np.hypot(*(a + t[:, None] * ab - p).T)
            i = int(np.argmin(d))
            if d[i] < best_d:
                best, best_d = (kind, i), d[i]
        if best is None:
            for i in range(len(self.blocks) - 1, -1, -1):
                if self.blocks[i].block.contains(y, x):
                    return (Kind.BLOCK, i)
        return best

    # -- drawing --------------------------------------------------------------------
    def _schedule(self, first: bool = False) -> None:
        """Draw what is dirty in later turns; ``first``: an edit, drawn before other views."""
        detail = sum(len(links.ids) for links in self.links.values()) <= FULL_DETAIL
        for links in self.links.values():
            if links.detail != detail:  # crossing the threshold redraws every chunk once
                links.detail = detail
                self._dirty.update(links.chunks)
        if self.raster.active == detail:
            self.raster.set_active(not detail)
        elif not detail:
            self.raster.schedule()
        if self._dirty:
            self._turns.later((self, "flush"), self._flush, first=first)

    def _flush(self) -> None:
        t0 = time.perf_counter()
        while self._dirty and time.perf_counter() - t0 < BUDGET_S:
            job = self._dirty.pop()
            if isinstance(job, _BlockMark):
                job.rebuild(self.view)
            else:
                job.rebuild()
        if self._dirty:  # the rest after the other views' waiting steps
            self._turns.later((self, "flush"), self._flush)
        else:
            self.drawn.emit()
