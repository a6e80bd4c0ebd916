"""File → Open image set…: a folder of images or a Berkeley folder, with thumbnails, each
image's status, next / previous, export of every mask; which human ground truth to show.

The ground truth itself lives in the session model (read in the file thread); the browser
chooses the annotator and whether the outline is shown.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, QRunnable, QSize, QThreadPool, Signal
from PySide6.QtGui import QIcon, QImage, QPixmap
from PySide6.QtWidgets import (QCheckBox, QDockWidget, QFileDialog, QHBoxLayout, QLabel, QListWidget,
                               QListWidgetItem, QPushButton, QSpinBox, QVBoxLayout, QWidget)

from segapp.core.eval import bsds

from .export_set import SetExporter
from .persistence import settings

THUMB = 96


class _Thumbs(QRunnable):
    """Decode and shrink the images off the GUI thread (QImage is thread-safe, QPixmap not)."""

    def __init__(self, items, sink):
        super().__init__()
        self.items, self.sink = items, sink

    def run(self):
        from PIL import Image

        for k, it in enumerate(self.items):
            try:
                with Image.open(it.image) as im:
                    im = im.convert("RGB")
                    im.thumbnail((THUMB, THUMB))
                    a = np.ascontiguousarray(np.asarray(im))
                qimg = QImage(a.data, a.shape[1], a.shape[0], 3 * a.shape[1], QImage.Format_RGB888).copy()
            except Exception:  # noqa: BLE001 - an unreadable file just has no thumbnail
                continue
            if not self._emit(self.sink.ready, k, qimg):
                return
        self._emit(self.sink.done)

    @staticmethod
    def _emit(signal, *args) -> bool:
        """Emit, or say False when the window (and the sink) is gone: the pool thread ends
        quietly instead of dying with "Signal source has been deleted"."""
        try:
            signal.emit(*args)
        except RuntimeError:
            return False
        return True


class _Sink(QObject):
    ready = Signal(int, QImage)
    done = Signal()


class BerkeleyBrowser(QDockWidget):
    """Lists a BSDS500 folder; emits ``imageChosen(item)``; sets the model's annotator."""

    imageChosen = Signal(object)
    thumbnailsDone = Signal()
    exported = Signal(str)  # the summary of "Export all masks"

    def __init__(self, model, parent=None):
        super().__init__("Image set", parent)
        self.model = model
        w = QWidget()
        lay = QVBoxLayout(w)
        self.list = QListWidget()
        self.list.setViewMode(QListWidget.IconMode)
        self.list.setIconSize(QSize(THUMB, THUMB))
        self.list.setResizeMode(QListWidget.Adjust)
        self.list.setGridSize(QSize(THUMB + 12, THUMB + 22))
        self.list.setMovement(QListWidget.Static)
        self.list.setMinimumWidth(2 * (THUMB + 12) + 24)
        self.list.itemActivated.connect(self._chosen)
        self.list.itemClicked.connect(self._chosen)
        lay.addWidget(self.list)
        row = QHBoxLayout()
        self.show_gt = QCheckBox("show ground truth")
        self.annotator = QSpinBox()
        self.annotator.setPrefix("annotator ")
        self.annotator.setRange(1, 1)
        self.annotator.valueChanged.connect(model.set_annotator)
        model.groundTruthChanged.connect(self._show_ground_truth_info)
        row.addWidget(self.show_gt)
        row.addWidget(self.annotator)
        lay.addLayout(row)
        self.export_button = QPushButton("Export all masks…")
        self.export_button.setToolTip("Segment every image of the set that has constraints and write "
                                      "its label mask (<stem>_labels.png) into a folder")
        self.export_button.clicked.connect(self._ask_export_folder)
        lay.addWidget(self.export_button)
        self.exporter = SetExporter(model)
        self.exporter.done.connect(self._exported)
        self.info = QLabel("")
        self.info.setWordWrap(True)
        lay.addWidget(self.info)
        self.setWidget(w)
        self.items: list[bsds.BsdsItem] = []
        self.done: set = set(settings().value("berkeley/done", [], type=list) or [])
        model.constraintsChanged.connect(self.refresh_status)
        model.imageChanged.connect(self.refresh_status)
        self._sink = _Sink()
        self._sink.ready.connect(self._thumb)
        self._sink.done.connect(self.thumbnailsDone)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)

    def open_folder(self, root) -> None:
        """A Berkeley folder, or a plain folder of images (:func:`core.eval.bsds.find_set`).

        Raises :class:`core.eval.bsds.DatasetError` for a folder that is neither."""
        self.items = bsds.find_set(root)
        self.list.clear()
        for it in self.items:
            self.list.addItem(QListWidgetItem(f"{it.id}"))
        self.info.setText(f"{len(self.items)} images in {root}")
        self.refresh_status()
        self.pool.start(_Thumbs(self.items, self._sink))
        self.show()

    def _thumb(self, k, qimg):
        if k < self.list.count():
            self.list.item(k).setIcon(QIcon(QPixmap.fromImage(qimg)))

    def _chosen(self, li):
        self.imageChosen.emit(self.items[self.list.row(li)])

    def export_all(self, folder) -> None:
        """Every mask of the set into ``folder`` (in the background; ``exporter.done`` says what
        was written and skipped)."""
        self.export_button.setEnabled(False)
        self.info.setText(f"exporting the masks of {len(self.items)} images…")
        self.exporter.export([it.image for it in self.items], folder)

    def _ask_export_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Export all masks of the set into…",
                                                  settings().value("last_save_folder", "") or "")
        if folder:
            settings().setValue("last_save_folder", folder)
            self.export_all(folder)

    def _exported(self, text: str) -> None:
        self.export_button.setEnabled(True)
        self.info.setText(text)
        self.exported.emit(text)

    def step(self, delta: int) -> None:
        """The next (``delta`` = 1) or previous (-1) image of the set, from the one shown."""
        if not self.items:
            return
        shown = [k for k, it in enumerate(self.items) if self.model.path is not None
                 and Path(it.image) == Path(self.model.path)]
        k = (shown[0] + delta) if shown else (0 if delta > 0 else len(self.items) - 1)
        if 0 <= k < len(self.items):
            self.list.setCurrentRow(k)
            self.imageChosen.emit(self.items[k])

    def status(self, item) -> str:
        """``done`` (marked so), ``in progress`` (it has constraints) or ``not started``."""
        if str(item.image) in self.done:
            return "done"
        items = self.model.items_of(Path(item.image))
        return "in progress" if items and any(items[k] for k in items if k != "order") else "not started"

    def mark_done(self, on: bool | None = None) -> None:
        """Mark the shown image done (``None``: toggle); kept in the settings."""
        if self.model.path is None:
            return
        key = str(self.model.path)
        on = (key not in self.done) if on is None else on
        self.done.discard(key)
        if on:
            self.done.add(key)
        settings().setValue("berkeley/done", sorted(self.done))
        self.refresh_status()

    def refresh_status(self) -> None:
        """Each thumbnail's caption: its id and status."""
        for k, it in enumerate(self.items):
            st = self.status(it)
            mark = {"done": "✓ ", "in progress": "… "}.get(st, "")
            self.list.item(k).setText(f"{mark}{it.id}")
            where = f"{it.split}/{it.id}" if it.split else it.id
            self.list.item(k).setToolTip(f"{where}: {st}" + ("" if it.ground_truth else " (no ground truth)"))

    def _show_ground_truth_info(self):
        segs = self.model.ground_truth
        self.annotator.blockSignals(True)
        self.annotator.setRange(1, max(1, len(segs)))
        self.annotator.setValue(self.model.annotator)
        self.annotator.blockSignals(False)
        self.annotator.setToolTip(f"{len(segs)} human segmentations; segments per annotator: "
                                  + ", ".join(str(int(s.max()) + 1) for s in segs))
