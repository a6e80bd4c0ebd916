"""The leading eigenvectors as small diverging-colour images, eigenvalues in a small plot."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from core import render


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
        lay.addWidget(self.plot, 2)

    def set_result(self, seg):
        vecs = seg.eigenvectors
        n = vecs.shape[2]
        names = (["u*"] + [f"v{k + 1}" for k in range(1, n)]) if seg.method == "csp" \
            else [f"e{k + 2}" for k in range(n)]
        for k, (it, vb, lbl) in enumerate(zip(self.items, self.boxes, self.labels)):
            if k < vecs.shape[2]:
                shown = getattr(seg, "display", {}).get("eigen_rgb", [])
                it.setImage(shown[k] if k < len(shown) else render.diverging(vecs[..., k]), levels=(0, 255))
                vb.autoRange(padding=0)
                ev = seg.eigenvalues[k]
                lbl.setText(f"{names[k]}  λ={ev:.3g}" if np.isfinite(ev) else f"{names[k]} (none)")
            else:
                it.clear()
                lbl.setText("")
        self.plot.clear()
        ev = np.asarray(seg.eigenvalues, float)
        ok = np.isfinite(ev)  # csp pads missing feasible vectors with NaN eigenvalues
        self.plot.plot(np.flatnonzero(ok) + 1, ev[ok], pen=pg.mkPen((80, 80, 80)), symbol="o", symbolSize=7)
        self.plot.setXRange(0.5, len(ev) + 0.5, padding=0)
        self.plot.getAxis("bottom").setTicks([[(i, str(i)) for i in range(1, len(ev) + 1)]])
