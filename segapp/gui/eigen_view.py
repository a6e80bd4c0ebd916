"""The leading eigenvectors as diverging-colour images in a row, eigenvalues in a plot beside them.

Painted per node through a thinned node map (at most :data:`THUMB` pixels a side), so a
12 MP photo costs what a Berkeley image does. Each thumbnail spans the image's own pixel
coordinates, so the tooltip under the cursor names the image pixel and the value there.

A result is drawn piece by piece in later event-loop turns (:mod:`.turns`: one thumbnail
with its caption per turn, then the eigenvalue plot; only the newest result), so the
overlay the user looks at is painted first and no turn of the GUI thread holds more than
one piece and its repaint. Nothing asks for a new layout per result: the captions keep
their size and the plot's range moves only when the eigenvalues leave it (pyqtgraph's
label items and auto-range re-lay out and re-tick on every change, 10-15 ms a result).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Signal
from PySide6.QtGui import QColor, QCursor, QFont, QFontMetricsF
from PySide6.QtWidgets import QGraphicsSimpleTextItem, QHBoxLayout, QSizePolicy, QToolTip, QWidget

from . import turns
from .paint import decided_rgba, eigenvector_rgba

THUMB = 240
PLOT = "plot"  # the last piece of a result


class Caption(pg.GraphicsWidget):
    """One line of text centred under a thumbnail; a new text never changes its size."""

    def __init__(self, point_size: int = 10):
        super().__init__()
        font = QFont()
        font.setPointSize(point_size)
        self.item = QGraphicsSimpleTextItem(self)
        self.item.setFont(font)
        self.item.setBrush(QColor("#202020"))
        h = QFontMetricsF(font).height() + 4
        self.setMinimumHeight(h)
        self.setMaximumHeight(h)
        self.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Fixed)

    @property
    def text(self) -> str:
        return self.item.text()

    def setText(self, text: str) -> None:
        if text != self.item.text():
            self.item.setText(text)
            self._centre()

    def resizeEvent(self, ev) -> None:
        self._centre()

    def _centre(self) -> None:
        r = self.item.boundingRect()
        self.item.setPos((self.size().width() - r.width()) / 2, (self.size().height() - r.height()) / 2)


def vector_caption(method: str, k: int, eigenvalue: float) -> str:
    """``vector 2  λ=0.0123``: numbered as on the eigenvalue plot's axis (csp's first, the
    relaxed indicator, also named u*)."""
    name = f"vector {k + 1}" + (" (u*)" if method == "csp" and k == 0 else "")
    return f"{name}  λ={eigenvalue:.3g}"


def missing_caption(eigenvalues) -> str:
    """Said in words where a vector is missing: ``only 2 vectors``."""
    m = int(np.isfinite(np.asarray(eigenvalues, float)).sum())
    return f"only {m} vector{'' if m == 1 else 's'}"


def decided_caption(result) -> str:
    """The last thumbnail's caption: how much of the image the strokes decided against the
    method's own labels, as a share of the image (of its pixels where the node map is
    known, else of the nodes); a share under 1% that is not zero is said as such."""
    decided = result.info.get("overruled_nodes")
    if decided is None:
        return f"{result.method}'s own labels"
    decided = np.asarray(decided, bool)
    nm = getattr(result, "node_map", None)
    share = float(decided[nm.node_map].mean()) if nm is not None and decided.size else float(np.mean(decided))
    said = "none" if share == 0 else "under 1%" if share < 0.01 else f"{100 * share:.0f}%"
    return f"{said} relabelled by the strokes (orange)"


EDGE_MARGIN = 0.04  # sticky_range: a kept range leaves the data this share of it from each edge


def sticky_range(lo: float, hi: float, current) -> tuple[float, float] | None:
    """A new y range for data in [lo, hi], or None if ``current`` (lo, hi) still fits it:
    the data at least :data:`EDGE_MARGIN` of its span inside both edges (a point on the
    edge is drawn half outside the plot) and spanning at least half of it."""
    span = hi - lo
    if current is not None:
        c0, c1 = current
        m = EDGE_MARGIN * (c1 - c0)
        if c0 + m <= lo and hi <= c1 - m and span >= 0.5 * (c1 - c0):
            return None
    pad = 0.1 * span if span > 0 else max(abs(hi), 1.0) * 0.1
    return lo - pad, hi + pad


class EigenView(QWidget):
    """Thumbnails of the leading eigenvectors in a row, the eigenvalue plot beside them.

    Signals
    -------
    hovered(text) : the tooltip shown for the thumbnail pixel under the cursor
    """

    hovered = Signal(str)
    HELP = ("The leading eigenvectors on the image, blue < 0 < red: the method's cut "
            "follows where they change sign or jump. Last: where the strokes overruled the "
            "method's own labels (orange; its caption says how much of the image) and where "
            "the method's labels stand (grey).")

    def __init__(self, n_show=4):
        super().__init__()
        lay = QHBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        self.glw = pg.GraphicsLayoutWidget()
        self.glw.setMinimumHeight(110)
        self.glw.setToolTip(self.HELP)
        self.glw.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self._pending = None  # the result being drawn, piece by piece
        self._todo: list = []  # its pieces still to draw: thumbnail indices, then PLOT
        self._turns = turns.shared()
        lay.addWidget(self.glw, 4)
        self.boxes, self.items, self.labels = [], [], []
        self._shown: list = [None] * n_show  # the result each thumbnail shows
        self._extents: list = [None] * n_show  # image pixels each thumbnail spans
        for k in range(n_show):
            vb = self.glw.addViewBox(row=0, col=k, lockAspect=True, invertY=True, enableMouse=False)
            vb.disableAutoRange()  # fitted once per thumbnail size, not re-ranged per result
            it = pg.ImageItem(axisOrder="row-major")
            vb.addItem(it)
            self.boxes.append(vb)
            self.items.append(it)
            lbl = Caption()
            self.glw.addItem(lbl, row=1, col=k)
            self.labels.append(lbl)
        self.glw.setBackground("w")
        self.plot = pg.PlotWidget(background="w")
        self.plot.setMinimumWidth(160)
        self.plot.setLabel("bottom", "index")
        font = QFont()
        font.setPointSize(9)
        for side in ("left", "bottom"):
            axis = self.plot.getAxis(side)
            axis.setTickFont(font)
            axis.setTextPen("#202020")
            axis.setPen("#606060")
        self.plot.getAxis("left").enableAutoSIPrefix(False)
        self.plot.getAxis("left").setWidth(42)
        self.plot.setTitle("eigenvalues", size="9pt", color="#202020")
        self.curve = self.plot.plot([], [], pen=pg.mkPen((80, 80, 80)), symbol="o", symbolSize=7)
        self.plot.getViewBox().disableAutoRange()  # see sticky_range
        self._y_range = None
        self._n_ticks = None
        lay.addWidget(self.plot, 1)

    def set_result(self, result) -> None:
        """Show ``result`` over later turns of the event loop (only the newest, if several come)."""
        self._pending = result
        self._todo = list(range(len(self.items))) + [PLOT]
        self._turns.later((self, "draw"), self._draw_next)

    @property
    def pending(self) -> bool:
        """A result is still being drawn."""
        return self._turns.waiting(self)

    def _draw_next(self) -> None:
        result = self._pending
        if result is None:
            return
        self._draw_piece(result, self._todo.pop(0))
        if self._todo:
            self._turns.later((self, "draw"), self._draw_next)
        else:
            self._pending = None

    def draw(self, result) -> None:
        """Show ``result`` now (every piece in this turn)."""
        self._pending, self._todo = None, []
        self._turns.cancel((self, "draw"))
        for piece in list(range(len(self.items))) + [PLOT]:
            self._draw_piece(result, piece)

    def _draw_piece(self, result, piece) -> None:
        if piece == PLOT:
            return self._draw_plot(result)
        k = piece
        it, vb, lbl = self.items[k], self.boxes[k], self.labels[k]
        self._shown[k] = result
        thumb = result.node_map.thumbnail(THUMB)
        if k == self.decided_slot:
            decided = result.info.get("overruled_nodes")
            overruled = np.zeros(len(result.node_labels), bool) if decided is None else np.asarray(decided, bool)
            self._set_thumb(k, thumb, result, decided_rgba(overruled, thumb))
            lbl.setText(decided_caption(result))
            return
        ev = np.asarray(result.eigenvalues, float)
        if k >= result.node_embedding.shape[1] or not np.isfinite(ev[k]):
            it.clear()
            first_missing = int(np.isfinite(ev[:k]).sum()) == k  # said once, under the first empty slot
            lbl.setText(missing_caption(ev) if first_missing else "")
            return
        self._set_thumb(k, thumb, result, eigenvector_rgba(result.node_embedding[:, k], thumb))
        lbl.setText(vector_caption(result.method, k, float(ev[k])))

    @property
    def decided_slot(self) -> int:
        """The last thumbnail: where the strokes decided, not the method (issue: the eigenvector
        dock shows what decided the cut)."""
        return len(self.items) - 1

    def _set_thumb(self, k, thumb, result, rgba) -> None:
        it, vb = self.items[k], self.boxes[k]
        step = max(1, -(-max(result.node_map.node_map.shape) // THUMB)) * result.node_map.factor
        extent = (thumb.shape[0] * step, thumb.shape[1] * step)  # image pixels the thumbnail spans
        fit = it.image is None or it.image.shape[:2] != thumb.shape or self._extents[k] != extent
        it.setImage(rgba, levels=None, autoLevels=False)
        if fit:
            it.setRect(QRectF(0, 0, extent[1], extent[0]))  # image pixel coordinates
            vb.autoRange(padding=0)
            self._extents[k] = extent

    def _draw_plot(self, result) -> None:
        ev = np.asarray(result.eigenvalues, float)
        ok = np.isfinite(ev)  # csp pads missing feasible vectors with NaN eigenvalues
        self.curve.setData(np.flatnonzero(ok) + 1, ev[ok])
        if ok.any():
            new = sticky_range(float(ev[ok].min()), float(ev[ok].max()), self._y_range)
            if new is not None:
                self._y_range = new
                self.plot.setYRange(*new, padding=0)
        if self._n_ticks != len(ev):
            self._n_ticks = len(ev)
            self.plot.setXRange(0.5, len(ev) + 0.5, padding=0)
            self.plot.getAxis("bottom").setTicks([[(i, str(i)) for i in range(1, len(ev) + 1)]])

    def value_text(self, k: int, row: int, col: int) -> str | None:
        """``eigenvector 2 at (row, col): 0.0134`` for image pixel (row, col) (on the last
        thumbnail: who decided the label there), None outside."""
        res = self._shown[k] if k < len(self._shown) else None
        if res is None:
            return None
        nm = res.node_map
        if not (0 <= row < nm.shape[0] and 0 <= col < nm.shape[1]):
            return None
        node = nm.node_map[row // nm.factor, col // nm.factor]
        if k == self.decided_slot:
            decided = res.info.get("overruled_nodes")
            by_strokes = decided is not None and bool(np.asarray(decided)[node])
            return f"({row}, {col}): " + ("the strokes decided the segment here" if by_strokes
                                           else f"{res.method}'s own segment")
        if k >= res.node_embedding.shape[1] or not np.isfinite(res.eigenvalues[k]):
            return None
        return f"eigenvector {k + 1} at ({row}, {col}): {res.node_embedding[node, k]:.4g}"

    def _on_mouse_moved(self, pos) -> None:
        for k, vb in enumerate(self.boxes):
            if vb.sceneBoundingRect().contains(pos):
                p = vb.mapSceneToView(pos)
                text = self.value_text(k, int(np.floor(p.y())), int(np.floor(p.x())))
                if text is not None:
                    self.glw.setToolTip(text)
                    QToolTip.showText(QCursor.pos(), text, self.glw)
                    self.hovered.emit(text)
                    return
        self.glw.setToolTip(self.HELP)
