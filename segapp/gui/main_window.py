"""The main window: wires the session model, canvas, side panel, worker and status bar."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (QComboBox, QFileDialog, QFormLayout, QGroupBox, QLabel, QMainWindow,
                               QMessageBox, QProgressBar, QSlider, QSpinBox, QSplitter, QToolBar,
                               QVBoxLayout, QWidget, QCheckBox)

import core
from core import render

from . import persistence
from .berkeley import BerkeleyBrowser
from .canvas import BLOCK, CANNOT, ERASE, MUST, Canvas
from .eigen_view import EigenView
from .param_form import ParamForm
from .session import SessionModel
from .worker import SegmentRunner


class MainWindow(QMainWindow):
    def __init__(self):
        super().__init__()
        self.setWindowTitle("segapp")
        self.model = SessionModel()
        st = persistence.settings()
        if st.value("method") in core.METHODS:  # last method and parameters (QSettings)
            self.model.method = st.value("method")
            self.model.params = dict(st.value("params", {}) or {})
        self.runner = SegmentRunner()
        self.block_label = 1
        self.canvas = Canvas()
        self.eigen = EigenView()
        self.params = ParamForm()
        self._build_side()
        split = QSplitter()
        split.addWidget(self.canvas)
        split.addWidget(self.side)
        split.setSizes([760, 360])
        self.setCentralWidget(split)
        self._build_actions()
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)
        self.busy.setMaximumWidth(90)
        self.busy.hide()
        self.status = QLabel("")
        self._err_timer = QTimer(self, singleShot=True, interval=6000)
        self._err_timer.timeout.connect(lambda: self.statusBar().setStyleSheet(""))
        self.statusBar().addWidget(self.status, 1)
        self.statusBar().addPermanentWidget(self.busy)
        m = self.model
        m.imageChanged.connect(self._on_image)
        m.constraintsChanged.connect(self._on_constraints)
        m.settingsChanged.connect(self.resegment)
        m.resultChanged.connect(self._on_result)
        m.errorOccurred.connect(self._error)
        self.runner.finished.connect(lambda rid, seg: m.set_result(seg))
        self.runner.failed.connect(lambda rid, msg: self._error(msg))
        self.runner.busyChanged.connect(lambda busy: self.busy.setVisible(busy == 1))
        self.canvas.view.strokeDrawn.connect(self._on_stroke)
        self.canvas.view.clicked.connect(self._erase_at)
        self.berkeley = BerkeleyBrowser(self)
        self.addDockWidget(Qt.LeftDockWidgetArea, self.berkeley)
        self.berkeley.hide()
        self.berkeley.imageChosen.connect(self._open_bsds_item)
        self.berkeley.groundTruthChanged.connect(self._on_ground_truth)
        self._autosave_timer = QTimer(self, singleShot=True, interval=300)
        self._autosave_timer.timeout.connect(lambda: persistence.save_session(self.model, clean=False))
        m.constraintsChanged.connect(self._autosave_timer.start)
        m.settingsChanged.connect(self._autosave_timer.start)
        self.setAcceptDrops(True)
        self.resize(1200, 720)
        geo = persistence.settings().value("geometry")
        if geo is not None:
            self.restoreGeometry(geo)

    # -- construction ---------------------------------------------------------------
    def _build_side(self):
        self.side = QWidget()
        lay = QVBoxLayout(self.side)
        box = QGroupBox("Method")
        f = QFormLayout(box)
        self.method_box = QComboBox()
        self.method_box.addItems(list(core.METHODS))
        self.method_box.setCurrentText(self.model.method)
        self.method_box.currentTextChanged.connect(self._on_method)
        self.k_box = QSpinBox()
        self.k_box.setRange(2, 16)
        self.k_box.valueChanged.connect(lambda k: self.model.set_segments(k))
        f.addRow("method", self.method_box)
        f.addRow("segments", self.k_box)
        lay.addWidget(box)
        pbox = QGroupBox("Parameters")
        QVBoxLayout(pbox).addWidget(self.params)
        self.params.changed.connect(self.model.set_param)
        lay.addWidget(pbox)
        rbox = QGroupBox("Working representation")
        self.rep_form = ParamForm()
        self.rep_form.set_specs(core.REPRESENTATION_PARAMS, "segapp working representation", self.model.params)
        self.rep_form.changed.connect(self.model.set_param)
        QVBoxLayout(rbox).addWidget(self.rep_form)
        lay.addWidget(rbox)
        obox = QGroupBox("Overlay")
        of = QFormLayout(obox)
        self.opacity = QSlider(Qt.Horizontal)
        self.opacity.setRange(0, 100)
        self.opacity.setValue(45)
        self.opacity.valueChanged.connect(self._on_opacity)
        self.bound = QCheckBox("boundaries only")
        self.bound.toggled.connect(self._on_bound)
        of.addRow("opacity", self.opacity)
        of.addRow(self.bound)
        lay.addWidget(obox)
        lay.addWidget(self.eigen, 1)
        self._on_method(self.model.method)

    def _build_actions(self):
        tb = QToolBar("Tools")
        self.addToolBar(tb)
        grp = QActionGroup(self)
        for name, key, tool in (("Must-link", "M", MUST), ("Cannot-link", "C", CANNOT),
                                ("Block", "B", BLOCK), ("Erase", "E", ERASE)):
            a = QAction(f"{name} ({key})", self, checkable=True)
            a.setShortcut(QKeySequence(key))
            a.triggered.connect(lambda _=False, t=tool: setattr(self.canvas.view, "tool", t))
            grp.addAction(a)
            tb.addAction(a)
            if tool == MUST:
                a.setChecked(True)
        for k in range(1, 10):
            a = QAction(str(k), self)
            a.setShortcut(QKeySequence(str(k)))
            a.triggered.connect(lambda _=False, k=k: self._set_block_label(k))
            self.addAction(a)
        tb.addSeparator()
        undo = self.model.undo.createUndoAction(self, "Undo")
        undo.setShortcuts([QKeySequence.Undo])
        redo = self.model.undo.createRedoAction(self, "Redo")
        redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        clear = QAction("Clear all", self, triggered=self.model.clear)
        for a in (undo, redo, clear):
            tb.addAction(a)
        fm = self.menuBar().addMenu("&File")
        fm.addAction(QAction("Open image…", self, shortcut=QKeySequence.Open, triggered=self.open_dialog))
        fm.addAction(QAction("Load constraints…", self, triggered=self.load_constraints))
        fm.addAction(QAction("Save constraints…", self, shortcut=QKeySequence.Save, triggered=self.save_constraints))
        fm.addAction(QAction("Open Berkeley folder…", self, triggered=self.open_berkeley_dialog))
        self.recent_menu = fm.addMenu("Open recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        fm.addSeparator()
        fm.addAction(QAction("Export label mask…", self, shortcut=QKeySequence("Ctrl+E"), triggered=self.export_mask))
        fm.addAction(QAction("Export colour overlay…", self, triggered=self.export_overlay))
        fm.addAction(QAction("Export eigenvectors…", self, triggered=self.export_eigenvectors))
        em = self.menuBar().addMenu("&Edit")
        em.addAction(undo)
        em.addAction(redo)
        em.addAction(clear)

    # -- reactions --------------------------------------------------------------------
    def _set_block_label(self, k):
        self.block_label = k
        self.status.setText(f"block label {k}")

    def _on_method(self, name):
        spec = core.METHODS[name]
        self.model.set_method(name)
        self.params.set_specs(spec.params, f"{spec.reference}", self.model.params)

    def _on_opacity(self, v):
        self.canvas.opacity = v / 100
        self.canvas.refresh_overlay()

    def _on_bound(self, on):
        self.canvas.boundaries_only = on
        self.canvas.refresh_overlay()

    def _on_image(self):
        self.canvas.set_image(self.model.image)
        self.canvas.gt_item.clear()
        self.setWindowTitle(f"segapp — {self.model.path.name}")
        persistence.add_recent(self.model.path)
        persistence.settings().setValue("last_folder", str(self.model.path.parent))
        self.resegment()

    def _on_constraints(self):
        self.canvas.set_constraints(self.model.constraints)
        self.resegment()

    def _on_stroke(self, tool, r1, c1, r2, c2):
        h, w = self.model.image.shape[:2]
        clamp = lambda r, c: (min(max(r, 0), h - 1), min(max(c, 0), w - 1))  # noqa: E731
        (r1, c1), (r2, c2) = clamp(r1, c1), clamp(r2, c2)
        if tool == BLOCK:
            top, bottom = sorted((r1, r2))
            left, right = sorted((c1, c2))
            self.model.add_block(core.Block(self.block_label, top, left, bottom + 1, right + 1))
        else:
            self.model.add_link("must_link" if tool == MUST else "cannot_link", r1, c1, r2, c2)

    def _erase_at(self, row, col):
        c = self.model.constraints
        best, tol = None, 6.0
        for kind, links in (("must_link", c.must_link), ("cannot_link", c.cannot_link)):
            for i, (r1, c1, r2, c2, _w) in enumerate(links):
                d = _seg_dist(row, col, r1 + .5, c1 + .5, r2 + .5, c2 + .5)
                if d < tol:
                    best, tol = (kind, i), d
        for i, b in enumerate(c.blocks):
            if best is None and b.top <= row < b.bottom and b.left <= col < b.right:
                best = ("blocks", i)
        if best:
            self.model.remove(*best)

    def resegment(self):
        m = self.model
        if m.image is None:
            return
        self.runner.request(m.image, m.constraints, m.method, m.n_segments, m.params)

    def _on_result(self, seg):
        self.canvas.set_labels(seg.labels, getattr(seg, "display", None))
        self.eigen.set_result(seg)
        c = self.model.constraints
        warn = ""
        if seg.warnings:
            more = f" (+{len(seg.warnings) - 1} more)" if len(seg.warnings) > 1 else ""
            warn = f"  ⚠ {seg.warnings[0]}{more}"
        self.status.setToolTip("\n".join(seg.warnings))
        gt = self.berkeley.current()
        ari = ""
        if gt is not None and gt.shape == seg.labels.shape:
            value = getattr(seg, "display", {}).get("ari")
            if value is None:  # annotator changed after this result: score it once here
                from core.eval.metrics import adjusted_rand

                value = adjusted_rand(gt, seg.labels)
                seg.display["ari"] = value
            ari = f" · ARI {value:.3f} vs annotator {self.berkeley.annotator.value()}"
        self.status.setText(f"{seg.method} · {seg.n_nodes} nodes · {seg.seconds * 1000:.0f} ms · "
                            f"{len(c.must_link)} must-link, {len(c.cannot_link)} cannot-link, "
                            f"{len(c.blocks)} blocks{ari}{warn}")

    def _error(self, msg):
        self.status.setText(f"⚠ {msg}")
        self.statusBar().setStyleSheet("color: #b00020")
        self._err_timer.start()

    def keyPressEvent(self, ev):
        if ev.key() == Qt.Key_Space and not ev.isAutoRepeat():
            self.canvas.view.space_down = True  # Space + drag pans
        super().keyPressEvent(ev)

    def keyReleaseEvent(self, ev):
        if ev.key() == Qt.Key_Space and not ev.isAutoRepeat():
            self.canvas.view.space_down = False
        super().keyReleaseEvent(ev)

    def closeEvent(self, ev):
        self._autosave_timer.stop()
        self.runner.shutdown()
        persistence.save_session(self.model, clean=True)
        st = persistence.settings()
        st.setValue("geometry", self.saveGeometry())
        st.setValue("method", self.model.method)
        st.setValue("params", dict(self.model.params))
        super().closeEvent(ev)

    # -- Berkeley ---------------------------------------------------------------------
    def open_berkeley_dialog(self):
        d = QFileDialog.getExistingDirectory(self, "Open Berkeley folder",
                                             persistence.settings().value("last_folder", ""))
        if d:
            self.open_berkeley(d)

    def open_berkeley(self, root) -> bool:
        try:
            self.berkeley.open_folder(root)
        except core.SegappError as e:
            self._error(str(e))
            return False
        return True

    def _open_bsds_item(self, item):
        from core.eval import bsds

        if not self.model.open_image(item.image):
            return
        segs = []
        if item.ground_truth is not None:
            try:
                segs = bsds.load_ground_truth(item.ground_truth)
            except core.SegappError as e:
                self._error(str(e))
        self.berkeley.set_ground_truth(segs)

    def _on_ground_truth(self):
        gt = self.berkeley.current()
        self.runner.ground_truth = gt
        if self.model.result is not None and hasattr(self.model.result, "display"):
            self.model.result.display.pop("ari", None)
        if gt is None or not self.berkeley.show_gt.isChecked() or self.model.image is None \
                or gt.shape != self.model.image.shape[:2]:
            self.canvas.gt_item.clear()
        else:
            from skimage.segmentation import find_boundaries

            b = find_boundaries(gt, mode="inner")
            rgba = np.zeros(gt.shape + (4,), np.uint8)
            rgba[b] = (255, 255, 0, 255)
            self.canvas.gt_item.setImage(rgba, levels=(0, 255))
        if self.model.result is not None:
            self._on_result(self.model.result)

    # -- drag and drop, recent ------------------------------------------------------
    def dragEnterEvent(self, ev):
        if ev.mimeData().hasUrls():
            ev.acceptProposedAction()

    def dropEvent(self, ev):
        urls = [u.toLocalFile() for u in ev.mimeData().urls() if u.isLocalFile()]
        if urls:
            self.model.open_image(urls[0])
            ev.acceptProposedAction()

    def _fill_recent(self):
        self.recent_menu.clear()
        for p in persistence.recent():
            self.recent_menu.addAction(Path(p).name, lambda p=p: self.model.open_image(p)).setToolTip(p)
        if self.recent_menu.isEmpty():
            self.recent_menu.addAction("(none)").setEnabled(False)

    # -- files ----------------------------------------------------------------------
    def open_dialog(self):
        p, _ = QFileDialog.getOpenFileName(self, "Open image", persistence.settings().value("last_folder", ""),
                                           "Images (*.png *.jpg *.jpeg *.tif *.tiff *.bmp)")
        if p:
            self.model.open_image(p)

    def load_constraints(self):
        p, _ = QFileDialog.getOpenFileName(self, "Load constraints", "", "JSON (*.json)")
        if p:
            try:
                c = core.Constraints.from_json(p)
                c.validate(self.model.image.shape[:2])
            except core.SegappError as e:
                return self._error(str(e))
            self.model.set_constraints(c)

    def save_constraints(self):
        p, _ = QFileDialog.getSaveFileName(self, "Save constraints", f"{self.model.path.stem}_constraints.json",
                                           "JSON (*.json)")
        if p:
            self.model.constraints.to_json(p)

    def _export(self, title, suffix, make, path=None):
        if self.model.result is None:
            return self._error("no segmentation to export yet")
        if not path:
            start = str(Path(persistence.settings().value("last_folder", "")) / f"{self.model.path.stem}_{suffix}.png")
            path, _ = QFileDialog.getSaveFileName(self, title, start, "PNG (*.png)")
        if path:
            try:
                make(path)
            except core.SegappError as e:
                self._error(str(e))

    def export_mask(self, path=None):
        """8-bit PNG of label indices, default name ``<stem>_labels.png`` (atomic write)."""
        self._export("Export label mask", "labels", lambda p: render.save_labels(p, self.model.result.labels), path)

    def export_overlay(self, path=None):
        self._export("Export colour overlay", "overlay", lambda p: render.save_png(
            p, render.overlay(self.model.image, self.model.result.labels, self.canvas.opacity,
                              self.canvas.boundaries_only)), path)

    def export_eigenvectors(self, path=None):
        self._export("Export eigenvectors", "eigenvectors", lambda p: render.save_png(
            p, render.eigenvector_strip(self.model.result.eigenvectors)), path)


def _seg_dist(r, c, r1, c1, r2, c2):
    p, a, b = np.array([r, c]), np.array([r1, c1]), np.array([r2, c2])
    ab = b - a
    t = np.clip(np.dot(p - a, ab) / max(np.dot(ab, ab), 1e-9), 0, 1)
    return float(np.linalg.norm(p - (a + t * ab)))
