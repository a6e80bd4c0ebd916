"""The leading eigenvectors as diverging-colour images in a row, eigenvalues in a plot beside them.

Painted per node through a thinned node map (at most :data:`THUMB` pixels a side), so a
12 MP photo costs what a Berkeley image does.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHBoxLayout, QWidget

from .paint import eigenvector_rgba

THUMB = 240


class EigenView(QWidget):
    """Thumbnails of the leading eigenvectors in a row, the eigenvalue plot beside them."""

    def __init__(self, n_show=4):
        super().__init__()
        lay = QHBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        self.glw = pg.GraphicsLayoutWidget()
        self.glw.setMinimumHeight(110)
        self.glw.setToolTip("The leading eigenvectors on the image, blue < 0 < red: the cut "
                            "between segments follows where they change sign or jump.")
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
        emb = result.node_embedding
        n = emb.shape[1]
        names = (["u*"] + [f"v{k + 1}" for k in range(1, n)]) if result.method == "csp" \
            else [f"e{k + 2}" for k in range(n)]
        thumb = result.node_map.thumbnail(THUMB)
        for k, (it, vb, lbl) in enumerate(zip(self.items, self.boxes, self.labels)):
            if k < n:
                fit = it.image is None or it.image.shape[:2] != thumb.shape
                it.setImage(eigenvector_rgba(emb[:, k], thumb), levels=None, autoLevels=False)
                if fit:
                    vb.autoRange(padding=0)
                ev = result.eigenvalues[k]
                lbl.setText(f"{names[k]}  λ={ev:.3g}" if np.isfinite(ev) else f"{names[k]} (none)")
            else:
                it.clear()
                lbl.setText("")
        ev = np.asarray(result.eigenvalues, float)
        ok = np.isfinite(ev)  # csp pads missing feasible vectors with NaN eigenvalues
        self.curve.setData(np.flatnonzero(ok) + 1, ev[ok])
        if self._n_ticks != len(ev):
            self._n_ticks = len(ev)
            self.plot.setXRange(0.5, len(ev) + 0.5, padding=0)
            self.plot.getAxis("bottom").setTicks([[(i, str(i)) for i in range(1, len(ev) + 1)]])
