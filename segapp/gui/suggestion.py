"""The suggested next stroke, drawn as a ghost on the canvas, and how a person answers it.

The worker computes, for every result once it is sent (the window's runner asks with
``Op.SUGGEST``; the model's ``suggestionChanged`` brings it to the canvas), where a stroke
would help most (:attr:`~segapp.worker.results.SegmentResult.suggestion`, from
:func:`core.suggest`): a
point at the centre of the least certain region (or of a large region no stroke has
confirmed) and, per segment, its surest point. The
ghost is a dashed ring at the point with a faint dashed line to each segment's surest point
in that segment's colour. Clicking the ring opens a menu that says the answer in the terms
of the tool: "with segment j" adds a must-link from the point to segment j's surest point,
"not segment s" a cannot-link to its own segment's (when the whole segment is asked about,
because no stroke has reached it, "apart from segment j" a cannot-link to segment j's
instead), "is segment j" a 5 x 5 block of label
j + 1 there (a block of label L makes its segment index L - 1: the answer names the segment,
where a must-link only says "with whom"). The answer is an ordinary edit (undoable like a
drawn stroke). ``G`` shows or hides the ghost.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QMenu

from segapp.core.constraints import Kind
from .edits import BlockEdit, LinkEdit

RING_PX = 18  # the ring's diameter on screen
HIT_PX = 14  # a click this close to the point (screen pixels) answers the suggestion
RING_TIP = ("Suggested next stroke: the result is least sure here. Click the ring to say where this spot "
            "belongs (the dotted lines lead to each segment's surest point); G hides it.")


class SuggestionGhost(QObject):
    """The ghost of one result's suggestion on ``view`` (a pyqtgraph ViewBox).

    Signals
    -------
    answered(LinkEdit) : the person said where the suggested point belongs
    """

    answered = Signal(object)

    def __init__(self, view):
        super().__init__()
        self.view = view
        self.ring = pg.ScatterPlotItem(size=RING_PX, symbol="o", brush=pg.mkBrush(255, 170, 0, 60),
                                       pen=pg.mkPen((255, 170, 0), width=3, style=Qt.DashLine),  # orange: not the brush's white
                                       hoverable=True, tip=lambda **_: RING_TIP)  # what the ring is, on hover
        self.ring.setZValue(30)
        self.ring.sigClicked.connect(lambda *_: self.ask(view.getViewWidget()))  # a click on the ring itself
        self.lines: list = []
        self.visible = True
        self.suggestion = None  # (point, segment, anchors) of the shown result
        self._colors = None
        self.namer = lambda j: f"segment {j + 1}"  # the legend's name of segment j (the window sets it)
        self.shape = None  # (H, W) of the image shown (the canvas sets it)
        view.addItem(self.ring, ignoreBounds=True)

    def show(self, suggestion, colors=None) -> None:
        """Draw ``suggestion`` (or nothing for None), each segment's line in ``colors[j]``."""
        self.suggestion = suggestion
        self._colors = None if colors is None else np.asarray(colors)
        self._draw()

    def set_visible(self, on: bool) -> None:
        self.visible = bool(on)
        self._draw()

    def _draw(self) -> None:
        for it in self.lines:
            self.view.removeItem(it)
        self.lines = []
        if self.suggestion is None or not self.visible:
            self.ring.setData([], [])
            return
        (r, c), _, anchors = self.suggestion
        self.ring.setData([c + 0.5], [r + 0.5])
        for j, a in enumerate(anchors):
            if a is None:
                continue
            rgb = (255, 255, 255) if self._colors is None or j >= len(self._colors) else tuple(int(v) for v in self._colors[j])
            xs, ys = [c + 0.5, a[1] + 0.5], [r + 0.5, a[0] + 0.5]
            # a dark line under the segment's colour: seen also over a region of that colour
            for pen, z in ((pg.mkPen((0, 0, 0, 150), width=3.5), 28.5),
                           (pg.mkPen((*rgb, 230), width=1.5, style=Qt.DotLine), 29)):
                line = pg.PlotCurveItem(xs, ys, pen=pen)
                line.setZValue(z)
                self.view.addItem(line, ignoreBounds=True)
                self.lines.append(line)

    def hit(self, x: float, y: float, tolerance: float) -> bool:
        """Whether view point (x, y) is within ``tolerance`` (view units) of the shown point."""
        if self.suggestion is None or not self.visible:
            return False
        r, c = self.suggestion[0]
        return (x - c - 0.5) ** 2 + (y - r - 0.5) ** 2 <= tolerance ** 2

    def answers(self) -> list[tuple[str, LinkEdit]]:
        """The answers a person can give, as ``(menu text, edit)``."""
        if self.suggestion is None:
            return []
        (r, c), own, anchors = self.suggestion
        out = []
        for j, a in enumerate(anchors):
            if a is not None:
                mine = " (as now)" if j == own else ""
                out.append((f"Belongs with {self.namer(j)}{mine}: must-link",
                            LinkEdit(Kind.MUST_LINK, r, c, a[0], a[1])))
        h, w = self.shape if self.shape is not None else (r + 3, c + 3)
        for j in range(len(anchors)):  # a label says which segment, not only "with whom"
            out.append((f"Label it {j + 1} (a block: index {j}, now {self.namer(j)})",
                        BlockEdit(j + 1, max(r - 2, 0), max(c - 2, 0), min(r + 3, h), min(c + 3, w))))
        if own < len(anchors) and anchors[own] is not None:
            a = anchors[own]
            out.append((f"Not {self.namer(own)}: cannot-link", LinkEdit(Kind.CANNOT_LINK, r, c, a[0], a[1])))
        else:  # the whole segment is asked about (no stroke has reached it): apart from which?
            for j, a in enumerate(anchors):
                if a is not None and j != own:
                    out.append((f"Apart from {self.namer(j)}: cannot-link", LinkEdit(Kind.CANNOT_LINK, r, c, a[0], a[1])))
        return out

    def ask(self, parent=None) -> None:
        """The answer menu at the mouse; the chosen answer is emitted as ``answered``."""
        menu = QMenu(parent)
        for text, edit in self.answers():
            menu.addAction(text, lambda e=edit: self.answered.emit(e))
        menu.popup(QCursor.pos())
        self._menu = menu  # kept alive while shown
