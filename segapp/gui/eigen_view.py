"""The leading eigenvectors as diverging-colour images in a row, eigenvalues in a plot beside them.

Painted per node through a thinned node map (at most :data:`THUMB` pixels a side), so a
12 MP photo costs what a Berkeley image does. Each thumbnail spans the image's own pixel
coordinates, so the tooltip under the cursor names the image pixel and the value there.

A result is drawn in the event-loop turn after the one it arrives in (the newest of several
pending), so the overlay the user looks at is painted first and no single turn of the GUI
thread holds both (measured with ``bench/gui_latency.py``'s heartbeat).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QTimer, Signal
from PySide6.QtGui import QCursor, QFont
from PySide6.QtWidgets import QHBoxLayout, QToolTip, QWidget

from .paint import eigenvector_rgba

THUMB = 240


class EigenView(QWidget):
    """Thumbnails of the leading eigenvectors in a row, the eigenvalue plot beside them.

    Signals
    -------
    hovered(text) : the tooltip shown for the thumbnail pixel under the cursor
    """

    hovered = Signal(str)
    HELP = ("The leading eigenvectors on the image, blue < 0 < red: the cut "
            "between segments follows where they change sign or jump.")

    def __init__(self, n_show=4):
        super().__init__()
        lay = QHBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        self.glw = pg.GraphicsLayoutWidget()
        self.glw.setMinimumHeight(110)
        self.glw.setToolTip(self.HELP)
        self.glw.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self._result = None
        self._extent = None
        self._pending = None
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.setInterval(0)
        self._later.timeout.connect(self._draw_pending)
        lay.addWidget(self.glw, 4)
        self.boxes, self.items, self.labels = [], [], []
        for k in range(n_show):
            vb = self.glw.addViewBox(row=0, col=k, lockAspect=True, invertY=True, enableMouse=False)
            it = pg.ImageItem(axisOrder="row-major")
            vb.addItem(it)
            self.boxes.append(vb)
            self.items.append(it)
            lbl = self.glw.addLabel("", row=1, col=k, size="10pt", color="#202020")
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
        self._n_ticks = None
        lay.addWidget(self.plot, 1)

    def set_result(self, result) -> None:
        """Show ``result`` in a later turn of the event loop (only the newest, if several come)."""
        self._pending = result
        self._later.start()

    @property
    def pending(self) -> bool:
        """A result waits to be drawn."""
        return self._pending is not None

    def _draw_pending(self) -> None:
        result, self._pending = self._pending, None
        if result is not None:
            self.draw(result)

    def draw(self, result) -> None:
        """Show ``result`` now."""
        self._result = result
        emb = result.node_embedding
        n = emb.shape[1]
        names = (["u*"] + [f"v{k + 1}" for k in range(1, n)]) if result.method == "csp" \
            else [f"e{k + 2}" for k in range(n)]
        thumb = result.node_map.thumbnail(THUMB)
        step = max(1, -(-max(result.node_map.node_map.shape) // THUMB)) * result.node_map.factor
        h, w = thumb.shape[0] * step, thumb.shape[1] * step  # image pixels the thumbnail spans
        for k, (it, vb, lbl) in enumerate(zip(self.items, self.boxes, self.labels)):
            if k < n:
                fit = it.image is None or it.image.shape[:2] != thumb.shape or self._extent != (h, w)
                it.setImage(eigenvector_rgba(emb[:, k], thumb), levels=None, autoLevels=False)
                it.setRect(QRectF(0, 0, w, h))  # image pixel coordinates
                if fit:
                    vb.autoRange(padding=0)
                ev = result.eigenvalues[k]
                lbl.setText(f"{names[k]}  λ={ev:.3g}" if np.isfinite(ev) else f"{names[k]} (none)")
            else:
                it.clear()
                lbl.setText("")
        self._extent = (h, w)
        ev = np.asarray(result.eigenvalues, float)
        ok = np.isfinite(ev)  # csp pads missing feasible vectors with NaN eigenvalues
        self.curve.setData(np.flatnonzero(ok) + 1, ev[ok])
        if self._n_ticks != len(ev):
            self._n_ticks = len(ev)
            self.plot.setXRange(0.5, len(ev) + 0.5, padding=0)
            self.plot.getAxis("bottom").setTicks([[(i, str(i)) for i in range(1, len(ev) + 1)]])

    def value_text(self, k: int, row: int, col: int) -> str | None:
        """``eigenvector 2 at (row, col): 0.0134`` for image pixel (row, col), None outside."""
        res = self._result
        if res is None or k >= res.node_embedding.shape[1]:
            return None
        nm = res.node_map
        if not (0 <= row < nm.shape[0] and 0 <= col < nm.shape[1]):
            return None
        node = nm.node_map[row // nm.factor, col // nm.factor]
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
