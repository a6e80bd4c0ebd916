"""The leading eigenvectors as small diverging-colour images, eigenvalues in a small plot.

Painted per node through a thinned node map (at most :data:`THUMB` pixels a side), so a
12 MP photo costs what a Berkeley image does.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from .paint import eigenvector_rgba

THUMB = 240


class EigenView(QWidget):
    def __init__(self, n_show=4):
        super().__init__()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel("Leading eigenvectors (blue < 0 < red)")
        lay.addWidget(self.title)
        self.glw = pg.GraphicsLayoutWidget()
        self.glw.setMinimumHeight(150)
        lay.addWidget(self.glw, 3)
        self.boxes, self.items, self.labels = [], [], []
        for k in range(n_show):
            vb = self.glw.addViewBox(row=0, col=k, lockAspect=True, invertY=True, enableMouse=False)
            it = pg.ImageItem(axisOrder="row-major")
            vb.addItem(it)
            self.boxes.append(vb)
            self.items.append(it)
            lbl = self.glw.addLabel("", row=1, col=k, size="8pt")
            self.labels.append(lbl)
        self.plot = pg.PlotWidget()
        self.plot.setMaximumHeight(120)
        self.plot.setLabel("bottom", "index")
        self.plot.setLabel("left", "λ")
        self.plot.getAxis("left").enableAutoSIPrefix(False)
        self.curve = self.plot.plot([], [], pen=pg.mkPen((80, 80, 80)), symbol="o", symbolSize=7)
        self._n_ticks = None
        lay.addWidget(self.plot, 2)

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
