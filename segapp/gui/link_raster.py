"""Thousands of links as one picture, rendered off the GUI thread.

Painting 10^4 long lines costs 50-150 ms per repaint (dashed ones the most), far too much
for the GUI thread. Beyond :data:`segapp.gui.constraint_layer.FULL_DETAIL` links the layer
hands them to this raster: a thread renders them at the view's screen resolution, in small
batches (PySide6 holds the GIL inside each QPainter call, so each call is kept short), and
the canvas shows the finished picture as one image. Edits, results and zooms re-render it
after a short pause; the GUI thread only copies references.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from PySide6.QtCore import QLineF, QObject, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem

BATCH = 100  # lines per QPainter call: each holds the GIL only a few milliseconds
DELAY_MS = 40


class _ImageItem(QGraphicsItem):
    """A QImage shown over ``rect`` (view coordinates)."""

    def __init__(self):
        super().__init__()
        self.image, self.rect = None, QRectF()

    def set(self, image, rect) -> None:
        self.prepareGeometryChange()
        self.image, self.rect = image, rect
        self.update()

    def boundingRect(self):
        return self.rect

    def paint(self, painter, *_):
        if self.image is not None:
            painter.drawImage(self.rect, self.image)


def render(segments: dict, size: QSize, rect: QRectF, colors: dict) -> QImage:
    """Draw ``segments`` (kind -> (solid (n, 4), dashed (m, 4)) x1, y1, x2, y2) seen in ``rect``
    onto a transparent image of ``size`` pixels (runs in a thread)."""
    img = QImage(size, QImage.Format_ARGB32_Premultiplied)
    img.fill(Qt.transparent)
    p = QPainter(img)
    p.setRenderHint(QPainter.Antialiasing)
    p.scale(size.width() / rect.width(), size.height() / rect.height())
    p.translate(-rect.x(), -rect.y())
    for kind, (solid, dashed) in segments.items():
        for segs, style in ((solid, Qt.SolidLine), (dashed, Qt.DashLine)):
            pen = QPen(QColor(*colors[kind]))
            pen.setWidthF(2)
            pen.setCosmetic(True)
            pen.setStyle(style)
            p.setPen(pen)
            for k in range(0, len(segs), BATCH):
                p.drawLines([QLineF(*s) for s in segs[k:k + BATCH]])
    p.end()
    return img


class LinkRaster(QObject):
    """The raster of a view's links; ``active`` while the layer has too many to paint one by one."""

    _rendered = Signal(int, object, object)

    def __init__(self, view, colors: dict, z: float = 11):
        super().__init__()
        self.view, self.colors = view, colors
        self.item = _ImageItem()
        self.item.setZValue(z)
        view.addItem(self.item, ignoreBounds=True)
        self.active = False
        self.source = None  # () -> {kind: (ids list, geom dict, bad set)}, references only
        self._generation = 0
        self._shown = 0
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="segapp-links")
        self._timer = QTimer(self, singleShot=True, interval=DELAY_MS)
        self._timer.timeout.connect(self._render)
        self._rendered.connect(self._show)
        view.sigRangeChanged.connect(lambda *_: self.schedule())

    @property
    def pending(self) -> bool:
        return self.active and (self._timer.isActive() or self._shown != self._generation)

    def set_active(self, on: bool) -> None:
        self.active = on
        self.item.setVisible(on)
        if on:
            self.schedule()
        else:
            self._generation += 1  # drop a render in flight
            self._shown = self._generation
            self.item.set(None, QRectF())

    def schedule(self) -> None:
        if self.active:
            self._generation += 1
            self._timer.start()

    def _render(self) -> None:
        vb = self.view
        rect = vb.viewRect()
        px = vb.viewPixelSize()
        size = QSize(max(1, round(rect.width() / px[0])), max(1, round(rect.height() / px[1])))
        data = {k: (list(ids), dict(geom), set(bad)) for k, (ids, geom, bad) in self.source().items()}
        gen, colors = self._generation, self.colors

        def job():
            segments = {}
            for kind, (ids, geom, bad) in data.items():
                arr = np.array([geom[i] for i in ids], float).reshape(-1, 4)
                mask = np.fromiter((i in bad for i in ids), bool, len(ids))
                segments[kind] = (arr[~mask], arr[mask])
            self._rendered.emit(gen, render(segments, size, rect, colors), rect)

        self._pool.submit(job)

    def _show(self, gen, image, rect) -> None:
        if gen == self._generation and self.active:
            self.item.set(image, rect)
            self._shown = gen
