"""The image canvas: image, segmentation overlay, constraint strokes and blocks; drawing tools."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal

from core import render

MUST, CANNOT, BLOCK, ERASE = "must", "cannot", "block", "erase"
GREEN, RED = (0, 200, 70), (230, 30, 30)


class DrawViewBox(pg.ViewBox):
    """A ViewBox whose left drag draws with the current tool; middle drag and wheel pan/zoom."""

    strokeDrawn = Signal(str, int, int, int, int)  # tool, r1, c1, r2, c2
    clicked = Signal(float, float)  # row, col (erase)

    def __init__(self):
        super().__init__(invertY=True, lockAspect=True)
        self.tool = MUST
        self.space_down = False
        self._start = None
        self._rubber = pg.PlotDataItem(pen=pg.mkPen((255, 255, 255), width=2, style=Qt.DashLine))
        self.addItem(self._rubber, ignoreBounds=True)
        self._rubber.setZValue(100)

    def _rc(self, ev_pos):
        p = self.mapSceneToView(ev_pos)
        return int(np.floor(p.y())), int(np.floor(p.x()))

    def mouseDragEvent(self, ev, axis=None):
        if ev.button() != Qt.LeftButton or self.tool == ERASE or self.space_down:
            if ev.button() == Qt.MiddleButton or self.space_down:
                ev.accept()
                tr = self.mapToView(ev.pos()) - self.mapToView(ev.lastPos())
                self.translateBy(x=-tr.x(), y=-tr.y())
                return
            return super().mouseDragEvent(ev, axis)
        ev.accept()
        if ev.isStart():
            self._start = self._rc(ev.buttonDownScenePos())
        if self._start is None:
            return
        end = self._rc(ev.scenePos())
        (r1, c1), (r2, c2) = self._start, end
        self._rubber.setData([c1 + 0.5, c2 + 0.5], [r1 + 0.5, r2 + 0.5])
        if ev.isFinish():
            self._rubber.setData([], [])
            self._start = None
            if np.hypot(r2 - r1, c2 - c1) >= 2:
                self.strokeDrawn.emit(self.tool, r1, c1, r2, c2)

    def mouseClickEvent(self, ev):
        if ev.button() == Qt.LeftButton and self.tool == ERASE:
            ev.accept()
            p = self.mapSceneToView(ev.scenePos())
            self.clicked.emit(p.y(), p.x())
        else:
            super().mouseClickEvent(ev)


class Canvas(pg.GraphicsLayoutWidget):
    """Image + overlay + constraint items, row-major image axis order."""

    def __init__(self):
        super().__init__()
        self.view = DrawViewBox()
        self.addItem(self.view)
        self.image_item = pg.ImageItem(axisOrder="row-major")
        self.overlay_item = pg.ImageItem(axisOrder="row-major")
        self.gt_item = pg.ImageItem(axisOrder="row-major")
        for z, it in enumerate((self.image_item, self.overlay_item, self.gt_item)):
            it.setZValue(z)
            self.view.addItem(it)
        self.opacity = 0.45
        self.boundaries_only = False
        self._items = []
        self._image = None
        self._labels = None

    def set_image(self, image):
        self._image = image
        self.image_item.setImage(render.to_rgb8(image), levels=(0, 255))
        self.overlay_item.clear()
        self._labels = None
        self.view.autoRange(padding=0.01)

    def set_labels(self, labels, display=None):
        """Show a segmentation; ``display`` holds colours and boundaries made by the worker."""
        self._labels = labels
        if display is None:
            from skimage.segmentation import find_boundaries

            display = {"colors": render.palette(int(labels.max()) + 1)[labels],
                       "boundaries": find_boundaries(labels, mode="inner")}
        self._display = display
        h, w = labels.shape
        self._rgba = np.empty((h, w, 4), np.uint8)
        self._rgba[..., :3] = display["colors"]
        self.refresh_overlay()

    def refresh_overlay(self):
        if self._labels is None or self._image is None:
            self.overlay_item.clear()
            return
        if self.boundaries_only:
            self._rgba[..., 3] = self._display["boundaries"] * np.uint8(255)
        else:
            self._rgba[..., 3] = int(self.opacity * 255)
        self.overlay_item.setImage(self._rgba, levels=(0, 255))

    def set_constraints(self, cons):
        for it in self._items:
            self.view.removeItem(it)
        self._items = []
        for links, col in ((cons.must_link, GREEN), (cons.cannot_link, RED)):
            for r1, c1, r2, c2, _w in links:
                xs, ys = [c1 + 0.5, c2 + 0.5], [r1 + 0.5, r2 + 0.5]
                outline = pg.PlotDataItem(xs, ys, pen=pg.mkPen((0, 0, 0), width=5))
                line = pg.PlotDataItem(xs, ys, pen=pg.mkPen(col, width=3), symbol="o", symbolSize=9,
                                       symbolBrush=col, symbolPen=pg.mkPen((0, 0, 0), width=1.5))
                self._add(outline, 10)
                self._add(line, 11)
        for b in cons.blocks:
            col = tuple(int(v) for v in render.palette(b.label + 1)[b.label])
            rect = pg.QtWidgets.QGraphicsRectItem(b.left, b.top, b.right - b.left, b.bottom - b.top)
            rect.setPen(pg.mkPen(col, width=2))
            rect.setBrush(pg.mkBrush(*col, 70))
            self._add(rect, 12)
            txt = pg.TextItem(str(b.label), color=(255, 255, 255), fill=pg.mkBrush(*col, 220), anchor=(0, 1))
            txt.setPos(b.left, b.top)
            self._add(txt, 13)

    def _add(self, it, z):
        it.setZValue(z)
        self.view.addItem(it, ignoreBounds=True)
        self._items.append(it)
