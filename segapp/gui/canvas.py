"""The image canvas: image, segmentation overlay, ground truth, constraints; drawing tools.

The canvas turns mouse gestures into typed edits (:mod:`segapp.gui.edits`) in full-image
pixel coordinates, hit-tests erase clicks itself, and paints results at working resolution
through the node map, stretched over the image (a 12 MP photo paints about 0.5 MP).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtWidgets import QGraphicsItem, QGraphicsRectItem

from . import paint
from .constraint_layer import ConstraintLayer
from .edits import BlockEdit, EraseEdit, LinkEdit

MUST, CANNOT, BLOCK, ERASE = "must", "cannot", "block", "erase"
ERASE_TOLERANCE_PX = 6  # screen pixels between a click and the link it erases


class DrawViewBox(pg.ViewBox):
    """A ViewBox whose left drag draws with the current tool; middle drag and wheel pan/zoom."""

    dragged = Signal(str, int, int, int, int)  # tool, r1, c1, r2, c2 (may lie outside the image)
    clicked = Signal(float, float)  # x, y in view (image) coordinates

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
                self.dragged.emit(self.tool, r1, c1, r2, c2)

    def mouseClickEvent(self, ev):
        if ev.button() == Qt.LeftButton and self.tool == ERASE:
            ev.accept()
            p = self.mapSceneToView(ev.scenePos())
            self.clicked.emit(p.x(), p.y())
        else:
            super().mouseClickEvent(ev)


class Canvas(pg.GraphicsLayoutWidget):
    """Image, overlay and constraint items; emits ``edited(edit)`` for every user edit."""

    edited = Signal(object)

    def __init__(self):
        super().__init__()
        self.view = DrawViewBox()
        self.addItem(self.view)
        self.image_item = pg.ImageItem(axisOrder="row-major")
        self.view.addItem(self.image_item)
        self._clip = QGraphicsRectItem()  # overlays stretched over the image, clipped to it
        self._clip.setFlag(QGraphicsItem.ItemClipsChildrenToShape)
        self._clip.setPen(pg.mkPen(None))
        self.view.addItem(self._clip, ignoreBounds=True)
        self.overlay_item = pg.ImageItem(axisOrder="row-major")
        self.gt_item = pg.ImageItem(axisOrder="row-major")
        for z, it in enumerate((self.overlay_item, self.gt_item)):
            it.setParentItem(self._clip)
            it.setZValue(z)
        self.layer = ConstraintLayer(self.view)
        self.block_label = 1
        self.opacity = 0.45
        self.boundaries_only = False
        self.shape = None
        self._labels = None  # working-resolution segment image of the shown result
        self._rect = None
        self.view.dragged.connect(self._on_drag)
        self.view.clicked.connect(self._on_click)

    # -- what is shown ------------------------------------------------------------------
    def set_image(self, display: np.ndarray) -> None:
        """Show a (H, W, 3) uint8 picture (zero-copy) and clear the result and ground truth."""
        self.shape = display.shape[:2]
        self.image_item.setImage(display, levels=None, autoLevels=False)
        self._clip.setRect(QRectF(0, 0, self.shape[1], self.shape[0]))
        self.overlay_item.clear()
        self.gt_item.clear()
        self._labels = None
        self.view.autoRange(padding=0.01)

    def show_result(self, result) -> None:
        """Paint a result through its node map at working resolution; dash what it breaks."""
        nm = result.node_map
        self._labels = paint.working_labels(result.node_labels, nm.node_map)
        h, w = nm.extent
        self._rect = QRectF(0, 0, w, h)
        self.refresh_overlay()
        self.layer.set_honoured(result.honoured)

    def refresh_overlay(self) -> None:
        if self._labels is None:
            self.overlay_item.clear()
            return
        self.overlay_item.setImage(paint.overlay_rgba(self._labels, self.opacity, self.boundaries_only),
                                   levels=None, autoLevels=False)
        self.overlay_item.setRect(self._rect)

    def set_ground_truth(self, rgba: np.ndarray | None) -> None:
        """A (H, W, 4) picture of human boundaries, or None to hide it."""
        if rgba is None:
            self.gt_item.clear()
        else:
            self.gt_item.setImage(rgba, levels=None, autoLevels=False)
            self.gt_item.setRect(QRectF(0, 0, rgba.shape[1], rgba.shape[0]))

    # -- gestures -> typed edits ------------------------------------------------------
    def _clamp(self, r, c):
        h, w = self.shape
        return min(max(r, 0), h - 1), min(max(c, 0), w - 1)

    def _on_drag(self, tool, r1, c1, r2, c2) -> None:
        if self.shape is None:
            return
        (r1, c1), (r2, c2) = self._clamp(r1, c1), self._clamp(r2, c2)
        if tool == BLOCK:
            top, bottom = sorted((r1, r2))
            left, right = sorted((c1, c2))
            self.edited.emit(BlockEdit(self.block_label, top, left, bottom + 1, right + 1))
        elif tool in (MUST, CANNOT):
            self.edited.emit(LinkEdit("must_link" if tool == MUST else "cannot_link", r1, c1, r2, c2))

    def _on_click(self, x, y) -> None:
        tol = ERASE_TOLERANCE_PX * max(self.view.viewPixelSize())
        hit = self.layer.hit(x, y, tol)
        if hit is not None:
            self.edited.emit(EraseEdit(*hit))
