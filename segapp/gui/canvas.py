"""The image canvas: image, segmentation overlay, ground truth, constraints; drawing tools.

The canvas turns mouse gestures (two-point links, block rectangles, brush strokes) into typed edits (:mod:`segapp.gui.edits`) in full-image
pixel coordinates, hit-tests erase clicks itself, and paints results at working resolution
through the node map, stretched over the image (a 12 MP photo paints about 0.5 MP), with an
:class:`~.paint.OverlayPainter` kept per node map.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtWidgets import QGraphicsEllipseItem, QGraphicsItem, QGraphicsRectItem

from segapp.core.constraints import Kind
from segapp import core
from segapp.core import render

from . import paint
from .constraint_layer import ConstraintLayer
from .brush import stroke_mask
from .colours import label_rgb
from .suggestion import HIT_PX, SuggestionGhost
from .edits import BlockEdit, EraseEdit, LinkEdit, RegionEdit

MUST, CANNOT, BLOCK, BRUSH, ERASE = "must", "cannot", "block", "brush", "erase"
PAINTERS_KEPT = 3  # a preview's map (the nodes), the result's (refined) and the one before
ERASE_TOLERANCE_PX = 6  # screen pixels between a click and the link it erases


class DrawViewBox(pg.ViewBox):
    """A ViewBox whose left drag draws with the current tool; middle drag and wheel pan/zoom."""

    dragged = Signal(str, int, int, int, int)  # tool, r1, c1, r2, c2 (may lie outside the image)
    dragging = Signal(str, int, int, int, int)  # the same while the drag goes on (each new end)
    dragDropped = Signal()  # a drag that had been previewed ended without an edit
    clicked = Signal(float, float)  # x, y in view (image) coordinates
    painted = Signal(object)  # brush stroke: (m, 2) array of (row, col) points in image coordinates
    brushWheel = Signal(int)  # Ctrl + wheel with the brush: +1 larger, -1 smaller

    def __init__(self):
        super().__init__(invertY=True, lockAspect=True)
        self.tool = MUST
        self.space_down = False
        self._start = None
        self._rubber = pg.PlotDataItem(pen=pg.mkPen((255, 255, 255), width=2, style=Qt.DashLine))
        self.addItem(self._rubber, ignoreBounds=True)
        self._rubber.setZValue(100)
        self.brush_radius = 6.0  # image pixels
        self.brush_color = (255, 0, 200)
        self._trail = []  # (row, col) of the brush stroke being painted
        self._trail_item = pg.PlotDataItem()
        self.addItem(self._trail_item, ignoreBounds=True)
        self._trail_item.setZValue(99)
        self._cursor = QGraphicsEllipseItem()  # the brush's size under the pointer
        self._cursor.setPen(pg.mkPen((255, 255, 255), width=1.5, style=Qt.DashLine))
        self._cursor.setZValue(101)
        self._cursor.setAcceptedMouseButtons(Qt.NoButton)
        self._cursor.hide()
        self.addItem(self._cursor, ignoreBounds=True)

    def hoverEvent(self, ev):
        """With the brush, a circle of its size follows the pointer."""
        if self.tool != BRUSH or ev.isExit():
            self._cursor.hide()
            return
        self._hover = self.mapSceneToView(ev.scenePos())
        self.show_brush_size()

    def show_brush_size(self) -> None:
        """Redraw the brush circle (after a move or a change of size)."""
        p = getattr(self, "_hover", None)
        if p is None or self.tool != BRUSH:
            return
        r = self.brush_radius
        self._cursor.setRect(p.x() - r, p.y() - r, 2 * r, 2 * r)
        self._cursor.show()

    def _rc(self, ev_pos):
        p = self.mapSceneToView(ev_pos)
        return int(np.floor(p.y())), int(np.floor(p.x()))

    def mouseDragEvent(self, ev, axis=None):
        if ev.button() == Qt.LeftButton and self.tool == ERASE and not self.space_down:
            ev.accept()  # erasing is a click; a drag must not pan the view away
            return
        if ev.button() != Qt.LeftButton or self.space_down:
            if ev.button() == Qt.MiddleButton or self.space_down:
                ev.accept()
                tr = self.mapToView(ev.pos()) - self.mapToView(ev.lastPos())
                self.translateBy(x=-tr.x(), y=-tr.y())
                return
            return super().mouseDragEvent(ev, axis)
        ev.accept()
        if self.tool == BRUSH:
            return self._brush_drag(ev)
        if ev.isStart():
            self._start = self._rc(ev.buttonDownScenePos())
        if self._start is None:
            return
        end = self._rc(ev.scenePos())
        (r1, c1), (r2, c2) = self._start, end
        self._rubber.setData([c1 + 0.5, c2 + 0.5], [r1 + 0.5, r2 + 0.5])
        if not ev.isFinish() and end != getattr(self, "_last_end", None) and np.hypot(r2 - r1, c2 - c1) >= 2:
            self._last_end = end
            self.dragging.emit(self.tool, r1, c1, r2, c2)
        if ev.isFinish():
            previewed = getattr(self, "_last_end", None) is not None
            self._last_end = None
            self._rubber.setData([], [])
            self._start = None
            if np.hypot(r2 - r1, c2 - c1) >= 2:
                self.dragged.emit(self.tool, r1, c1, r2, c2)
            elif previewed:
                self.dragDropped.emit()

    def _brush_drag(self, ev) -> None:
        if ev.isStart():
            p = self.mapSceneToView(ev.buttonDownScenePos())
            self._trail = [(p.y(), p.x())]
            pen = pg.mkPen((*self.brush_color, 150), width=2 * self.brush_radius)
            pen.setCosmetic(False)  # the stroke is as wide as the brush in image pixels
            pen.setCapStyle(Qt.RoundCap)
            pen.setJoinStyle(Qt.RoundJoin)
            self._trail_item.setPen(pen)
        p = self.mapSceneToView(ev.scenePos())
        self._trail.append((p.y(), p.x()))
        t = np.asarray(self._trail)
        self._trail_item.setData(t[:, 1], t[:, 0])
        if ev.isFinish():
            self._trail_item.setData([], [])
            self._trail = []
            self.painted.emit(t)

    def wheelEvent(self, ev, axis=None):
        if self.tool == BRUSH and ev.modifiers() & Qt.ControlModifier:
            ev.accept()
            self.brushWheel.emit(1 if ev.delta() > 0 else -1)
            return
        super().wheelEvent(ev, axis)

    def mouseClickEvent(self, ev):
        if ev.button() == Qt.LeftButton:  # erase, or answer the suggested stroke
            ev.accept()
            p = self.mapSceneToView(ev.scenePos())
            self.clicked.emit(p.x(), p.y())
        else:
            super().mouseClickEvent(ev)


class Canvas(pg.GraphicsLayoutWidget):
    """Image, overlay and constraint items; emits ``edited(edit)`` for every user edit."""

    edited = Signal(object)
    previewing = Signal(object)  # the link or block being dragged, as it stands (not an edit)
    previewDropped = Signal()  # the previewed drag ended without an edit: show the result again

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
        self.ghost = SuggestionGhost(self.view)  # the suggested next stroke
        self.ghost.answered.connect(self.edited.emit)
        self.block_label = 1
        self.view.brush_color = label_rgb(1)
        self.opacity = render.OVERLAY_OPACITY
        self.boundaries_only = False
        self.shape = None
        self._node_labels = None  # segment of every node of the shown result
        self._shown_rid = None  # request id of the result (or preview) on the canvas
        self._painter = None  # paint.OverlayPainter of its node map
        self._painter_key = None
        self._painters = OrderedDict()  # the last few maps' painters (previews and results alternate)
        self._colors = None  # (K, 3) uint8 colours of its segments
        self._rect = None
        self.view.dragged.connect(self._on_drag)
        self.view.dragging.connect(lambda *a: self._on_drag(*a, signal=self.previewing))
        self.view.dragDropped.connect(self.previewDropped.emit)
        self.view.clicked.connect(self._on_click)
        self.view.painted.connect(self._on_paint)
        self.view.brushWheel.connect(lambda step: self.resize_brush(1.25 ** step))

    # -- brush --------------------------------------------------------------------------
    @property
    def brush_radius(self) -> float:
        return self.view.brush_radius

    def resize_brush(self, factor: float) -> None:
        """Scale the brush radius (1 to 200 image pixels)."""
        self.view.brush_radius = float(np.clip(self.view.brush_radius * factor, 1.0, 200.0))
        self.view.show_brush_size()

    def set_label(self, k: int) -> None:
        """The label new blocks and brush strokes get (1-9)."""
        self.block_label = k
        self.view.brush_color = label_rgb(k)

    def zoom_to_fit(self) -> None:
        """Show the whole image."""
        if self.shape is not None:
            self.view.autoRange(padding=0.01)

    def actual_size(self) -> None:
        """100% zoom: one image pixel per screen pixel, about the centre of what is shown."""
        if self.shape is not None:
            c = self.view.viewRect().center()
            w, h = self.view.width(), self.view.height()  # the view's size in screen pixels
            self.view.setRange(xRange=(c.x() - w / 2, c.x() + w / 2), yRange=(c.y() - h / 2, c.y() + h / 2),
                               padding=0)

    # -- what is shown ------------------------------------------------------------------
    def set_image(self, display: np.ndarray) -> None:
        """Show a (H, W, 3) uint8 picture (zero-copy) and clear the result and ground truth."""
        self.shape = display.shape[:2]
        self.image_item.setImage(display, levels=None, autoLevels=False)
        self._clip.setRect(QRectF(0, 0, self.shape[1], self.shape[0]))
        self.overlay_item.clear()
        self.gt_item.clear()
        self._node_labels = None
        self.ghost.shape = self.shape
        self.ghost.show(None)
        self.view.autoRange(padding=0.01)

    def show_result(self, result, info=None) -> None:
        """Paint a result through its node map at working resolution, in the colours of
        ``info`` (a :class:`~.colours.SegmentInfo`; default the palette in segment order);
        dash what it breaks."""
        nm = result.node_map
        self._colors = None if info is None else info.rgb
        if self._painter_key != nm.key:
            if nm.key not in self._painters:
                self._painters[nm.key] = paint.OverlayPainter(nm.node_map)
                while len(self._painters) > PAINTERS_KEPT:
                    self._painters.popitem(last=False)
            self._painters.move_to_end(nm.key)
            self._painter, self._painter_key = self._painters[nm.key], nm.key
        self._node_labels = result.node_labels
        self._shown_rid = result.rid
        h, w = nm.extent
        self._rect = QRectF(0, 0, w, h)
        self.refresh_overlay()
        self.layer.set_honoured(drawn_honoured(result))
        self.ghost.show(getattr(result, "suggestion", None), self._colors)

    def show_suggestion(self, rid: int, suggestion) -> None:
        """The ghost of result ``rid``'s suggested next stroke (it arrives after the result),
        if that result is the one on the canvas (not a preview drawn since)."""
        if rid == self._shown_rid:
            self.ghost.show(suggestion, self._colors)

    def refresh_overlay(self) -> None:
        if self._node_labels is None:
            self.overlay_item.clear()
            return
        rgba = self._painter.rgba(self._node_labels, self.opacity, self.boundaries_only, self._colors)
        self.overlay_item.setImage(rgba, levels=None, autoLevels=False)
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

    def _on_drag(self, tool, r1, c1, r2, c2, signal=None) -> None:
        """A finished drag is an edit (``edited``); one going on, with ``signal`` =
        ``previewing``, only shows what it would do."""
        if self.shape is None:
            return
        signal = signal or self.edited
        (r1, c1), (r2, c2) = self._clamp(r1, c1), self._clamp(r2, c2)
        if tool == BLOCK:
            top, bottom = sorted((r1, r2))
            left, right = sorted((c1, c2))
            signal.emit(BlockEdit(self.block_label, top, left, bottom + 1, right + 1))
        elif tool in (MUST, CANNOT):
            signal.emit(LinkEdit(Kind.MUST_LINK if tool == MUST else Kind.CANNOT_LINK, r1, c1, r2, c2))

    def _on_paint(self, points) -> None:
        if self.shape is None:
            return
        painted = stroke_mask(points, self.view.brush_radius, self.shape)
        if painted is not None:
            mask, top, left = painted
            self.edited.emit(RegionEdit(core.Block.from_mask(self.block_label, mask, top, left)))

    def _on_click(self, x, y) -> None:
        if self.ghost.hit(x, y, HIT_PX * max(self.view.viewPixelSize())):
            return self.ghost.ask(self)
        if self.view.tool != ERASE:
            return
        tol = ERASE_TOLERANCE_PX * max(self.view.viewPixelSize())
        hit = self.layer.hit(x, y, tol)
        if hit is not None:
            self.edited.emit(EraseEdit(*hit))


def drawn_honoured(result) -> dict:
    """``result.honoured`` as the canvas draws it: a cannot-link kept apart only by a segment
    under 3% of the image (``info['small_cannot_links']``) is drawn dashed like one the result
    breaks, since a blob around its end does not separate its regions (the status bar says so)."""
    small = (result.info or {}).get("small_cannot_links") or []
    if not small:
        return result.honoured
    flags = dict(result.honoured)
    cl = np.array(flags.get(Kind.CANNOT_LINK, ()), bool)
    for i, _ in small:
        if 0 <= int(i) < len(cl):
            cl[int(i)] = False
    flags[Kind.CANNOT_LINK] = cl
    return flags

