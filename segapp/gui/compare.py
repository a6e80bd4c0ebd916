"""Every method's result on the same strokes at once: a grid of small overlays.

The compare view has a worker process of its own (a second
:class:`~segapp.worker.client.WorkerClient` behind a :class:`~.runner.SegmentRunner`), so
filling it never delays the result on the canvas and never blocks drawing. After every edit
the methods are segmented one after another on the newest constraints (the current method's final labels are not computed again: its tile
shows the canvas's result); an edit made while the view fills restarts it on the newest
strokes. Each tile shows the method's final labels in the canvas's
colours (segments matched to the shown result's, :class:`~.colours.SegmentColours`), its
name, its ARI when a ground truth is open, and its time; with *paper rounding* on, each
paper's own rounding (``rounding='paper'``) is shown beside, so a person sees what the
constraint step changed. Clicking a tile makes that method the current one. The view only
works while it is shown.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QCheckBox, QGridLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from segapp import core
from segapp.core import render
from segapp.core.constraints import Kind

from .colours import PALETTE, SegmentColours
from .runner import SegmentRunner

TILE_SIDE = 140  # a tile's longer side, screen pixels
COLUMNS = 7  # one row: the view is a tab beside the eigenvectors


def tile_rgb(display: np.ndarray, result, slots, side: int = TILE_SIDE) -> np.ndarray:
    """The result's segments over the picture, at most ``side`` pixels a side, (h, w, 3) uint8."""
    nm = result.node_map
    h, w = nm.shape
    step = max(1, -(-max(h, w) // side))
    rows, cols = np.arange(0, h, step), np.arange(0, w, step)
    labels = np.asarray(result.node_labels)[nm.node_map[np.ix_(rows // nm.factor, cols // nm.factor)]]
    colours = PALETTE[np.asarray(slots)[labels]].astype(np.float32)
    picture = display[np.ix_(rows, cols)][..., :3].astype(np.float32)
    a = render.OVERLAY_OPACITY
    return np.ascontiguousarray((1 - a) * picture + a * colours).astype(np.uint8)


def _pixmap(rgb: np.ndarray) -> QPixmap:
    h, w, _ = rgb.shape
    return QPixmap.fromImage(QImage(rgb.data, w, h, 3 * w, QImage.Format_RGB888).copy())


class FitLabel(QLabel):
    """A picture scaled to fit the label whatever its size, aspect kept (never cropped)."""

    def __init__(self):
        super().__init__()
        self._full = None
        self.setAlignment(Qt.AlignCenter)
        self.setMinimumSize(60, 40)
        self.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Ignored)

    def set_picture(self, pixmap: QPixmap) -> None:
        self._full = pixmap
        self._fit()

    def picture(self) -> QPixmap | None:
        return self._full

    def clear(self) -> None:
        self._full = None
        super().clear()

    def resizeEvent(self, ev):
        super().resizeEvent(ev)
        self._fit()

    def _fit(self) -> None:
        if self._full is not None:
            self.setPixmap(self._full.scaled(self.size(), Qt.KeepAspectRatio, Qt.SmoothTransformation))


class Tile(QWidget):
    """One method: its final labels (and its paper's rounding), name, ARI and time."""

    chosen = Signal(str)

    def __init__(self, method: str):
        super().__init__()
        self.method = method
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        row = QWidget()
        rl = QGridLayout(row)
        rl.setContentsMargins(0, 0, 0, 0)
        self.final, self.paper = FitLabel(), FitLabel()
        for i, lab in enumerate((self.final, self.paper)):
            rl.addWidget(lab, 0, i)
        self.paper.hide()
        self.final.setToolTip(f"{method}: final labels (the constraint step and the pixel refinement)")
        self.paper.setToolTip(f"{method}: its paper's own rounding (rounding='paper')")
        self.caption = QLabel(method)
        self.caption.setAlignment(Qt.AlignCenter)
        lay.addWidget(row)
        lay.addWidget(self.caption)
        self.setToolTip(f"{core.METHODS[method].plain}\nClick to make {method} the current method.")
        self.seconds = self.ari = None
        self.stale = True

    def show_result(self, kind: str, pixmap: QPixmap, ari, seconds: float) -> None:
        (self.final if kind == "final" else self.paper).set_picture(pixmap)
        if kind == "final":
            self.ari, self.seconds, self.stale = ari, seconds, False
            self._caption()

    def mark_stale(self) -> None:
        self.stale = True
        self._caption()

    def _caption(self) -> None:
        parts = [self.method]
        if self.ari is not None:
            parts.append(f"ARI {self.ari:.2f}")
        if self.seconds is not None:
            parts.append(f"{1000 * self.seconds:.0f} ms")
        text = " · ".join(parts) + (" …" if self.stale else "")
        if not self.paper.isHidden():
            text += "\nfinal | paper's rounding"
        self.caption.setText(text)

    def mousePressEvent(self, ev):
        if ev.button() == Qt.LeftButton:
            self.chosen.emit(self.method)


class CompareView(QWidget):
    """The grid of every method's result on the session's constraints (module docstring).

    Signals
    -------
    filled() : every tile shows the newest constraints' result
    """

    filled = Signal()

    def __init__(self, model, runner: SegmentRunner | None = None):
        super().__init__()
        self.model = model
        self._runner = runner  # made on first use: the view's own worker process
        self.tiles = {m: Tile(m) for m in core.METHODS}
        self.paper_box = QCheckBox("each paper's own rounding beside (rounding='paper')")
        lay = QVBoxLayout(self)
        lay.addWidget(self.paper_box)
        grid = QGridLayout()
        for i, t in enumerate(self.tiles.values()):
            grid.addWidget(t, i // COLUMNS, i % COLUMNS)
            t.chosen.connect(model.set_method)
        lay.addLayout(grid)
        lay.addStretch(1)
        self.active = False
        self._queue: list = []  # (method, kind) still to do for the newest constraints
        self._rid = None
        self._sent_image = None
        self._sent_gt = None
        self._last: dict = {}  # method -> rid of its last final result (its "previous")
        self._main = SegmentColours()  # the canvas's colours, to match tiles to
        self.main_score = lambda: None  # the window's ARI of its shown result (the window sets it)
        self.paper_box.toggled.connect(self._on_paper)
        model.constraintsChanged.connect(self.refill)
        model.imageChanged.connect(self._on_image)
        model.segmentsChanged.connect(lambda _k: self.refill())
        model.paramsChanged.connect(lambda _n: self.refill())
        model.groundTruthChanged.connect(self.refill)

    # -- life --------------------------------------------------------------------------
    @property
    def runner(self) -> SegmentRunner:
        if self._runner is None:
            self._runner = SegmentRunner(background=True)
            self._runner.finished.connect(self._on_result)
            self._runner.failed.connect(self._on_failed)
        return self._runner

    def set_active(self, on: bool) -> None:
        """Fill while shown; idle (its worker too) while hidden."""
        self.active = bool(on)
        if self.active:
            self.refill()
            res = self.model.result
            if res is not None and res.node_map is not None:  # the result on screen, at once
                self.show_main(res, self._main.follower().assign(res, self.model.items(Kind.BLOCK)))
        else:
            self._queue = []

    def shutdown(self) -> None:
        if self._runner is not None:
            self._runner.shutdown()

    @property
    def busy(self) -> bool:
        """Tiles still to fill for the newest constraints."""
        return bool(self._queue) or self._rid is not None

    @property
    def stale(self) -> bool:
        """Some tile does not show the newest constraints yet."""
        return any(t.stale for t in self.tiles.values())

    # -- filling -------------------------------------------------------------------------
    def refill(self) -> None:
        """Start over on the newest constraints (drops what was queued for older ones)."""
        m = self.model
        if not self.active or m.image is None:
            return
        if self._sent_image != m.image_token:
            self.runner.set_image(m.image_token, m.image)
            self._sent_image, self._last = m.image_token, {}
        gt = m.current_ground_truth()
        if gt is not self._sent_gt:
            self.runner.set_ground_truth(m.image_token, gt)
            self._sent_gt = gt
        order = [x for x in self.tiles if x != m.method] + [m.method]
        kinds = ("final", "paper") if self.paper_box.isChecked() else ("final",)
        # the current method's final labels are the canvas's: its tile is painted from them
        self._queue = [(x, k) for x in order for k in kinds
                       if not (x == "ncut" and k == "paper") and not (x == m.method and k == "final")]
        for t in self.tiles.values():
            t.paper.setVisible(self.paper_box.isChecked() and t.method != "ncut")
            t.mark_stale()
        self._next()

    def _next(self) -> None:
        if not self._queue:
            self._rid = None
            if not self.stale:
                self.filled.emit()
            return
        method, kind = self._queue[0]
        m = self.model
        s = m.snapshot()
        params = dict(m.method_params.get(method, {}), **m.rep_params)
        if kind == "paper":
            params["rounding"] = "paper"
        self._rid = self.runner.request(m.image_token, s[Kind.MUST_LINK], s[Kind.CANNOT_LINK], s[Kind.BLOCK],
                                        method, m.n_segments, params, order=s["order"],
                                        previous=self._last.get(method) if kind == "final" else None,
                                        suggest=False)  # a tile shows no ghost

    def _on_result(self, rid, result) -> None:
        if rid != self._rid or not self._queue:
            return
        method, kind = self._queue.pop(0)
        if kind == "final":
            self._last[method] = rid
        info = self._main.follower().assign(result, self.model.items(Kind.BLOCK))
        rgb = tile_rgb(self.model.display, result, info.slots)
        self.tiles[method].show_result(kind, _pixmap(rgb), result.ari, result.seconds)
        self._next()

    def show_main(self, result, info) -> None:
        """The window's own result (in the canvas's colours ``info``) as its method's tile."""
        if not self.active or result is not self.model.result or result.method not in self.tiles:
            return
        rgb = tile_rgb(self.model.display, result, info.slots)
        ari = self.main_score() if self.model.current_ground_truth() is not None else None
        self.tiles[result.method].show_result("final", _pixmap(rgb), ari, result.seconds)
        if not self.busy and not self.stale:
            self.filled.emit()

    def main_ari(self, result, ari) -> None:
        """The window's ARI of its result (scored after the result arrived) on its tile."""
        tile = self.tiles.get(getattr(result, "method", None))
        if tile is not None and ari is not None and result is self.model.result and tile.ari != ari:
            tile.ari = ari
            tile._caption()

    def _on_failed(self, rid, message) -> None:
        if rid != self._rid or not self._queue:
            return
        method, kind = self._queue.pop(0)
        if kind == "final":
            self.tiles[method].caption.setText(f"{method}: {message[:60]}")
            self.tiles[method].caption.setToolTip(message)
        self._next()

    def follow_colours(self, colours: SegmentColours) -> None:
        """Match tiles' colours to the canvas's (its colour grid of the shown result)."""
        self._main = colours

    def _on_paper(self, _on: bool) -> None:
        self.refill()

    def _on_image(self) -> None:
        self._last = {}
        for t in self.tiles.values():
            t.final.clear()
            t.paper.clear()
            t.ari = t.seconds = None
            t.mark_stale()
        self.refill()
