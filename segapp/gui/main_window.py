"""The main window: layout, menus, toolbar and file dialogs; it wires the parts together.

Model (:mod:`.session`), controller (:mod:`.controller`: worker, files, status), canvas and
side panel do the work; this module only places them and connects actions to them.
"""

from __future__ import annotations

import gc
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QDockWidget, QFileDialog, QLabel, QMainWindow, QSplitter, QToolBar

from segapp import core

from . import colours, persistence, recovery, turns
from .autosave_badge import AutosaveBadge
from .berkeley import BerkeleyBrowser
from .load_progress import LoadBar
from .canvas import BLOCK, BRUSH, CANNOT, ERASE, MUST, Canvas
from .compare import CompareView
from .commands import CLEAR_ALL_KEY, fixed_undo_action
from .controller import Controller
from .focus import return_focus_in
from .help import add_help_menu
from .session import SessionModel
from .side_panel import SidePanel

IMAGE_FILTER = "Images (*.png *.jpg *.jpeg *.tif *.tiff *.bmp)"


class MainWindow(QMainWindow):
    def __init__(self, runner=None):
        super().__init__()
        self.setWindowTitle("segapp")
        self.model = SessionModel()
        notes = persistence.load_settings(self.model)
        self._stopped_by: str | None = None  # a signal's name when one closed the window
        self._confirmed = False  # unsaved work was saved or discarded by the user
        self.controller = Controller(self.model, runner)
        self.runner = self.controller.runner
        self.canvas = Canvas()
        self.side = SidePanel(self.model)
        split = QSplitter()
        split.addWidget(self.canvas)
        split.addWidget(self.side)
        split.setSizes([760, 360])
        split.setStretchFactor(0, 1)
        self.setCentralWidget(split)
        self.eigen_dock = QDockWidget("Leading eigenvectors (blue < 0 < red) and eigenvalues", self)
        self.eigen_dock.setObjectName("eigenvectors")
        self.eigen_dock.setWidget(self.side.eigen)
        self.eigen_dock.setFeatures(QDockWidget.DockWidgetMovable | QDockWidget.DockWidgetFloatable)
        self.addDockWidget(Qt.BottomDockWidgetArea, self.eigen_dock)
        self.resizeDocks([self.eigen_dock], [170], Qt.Vertical)
        self.compare = CompareView(self.model)
        self.compare_dock = QDockWidget("Compare methods", self)
        self.compare_dock.setObjectName("compare")
        self.compare_dock.setWidget(self.compare)
        self.addDockWidget(Qt.BottomDockWidgetArea, self.compare_dock)
        self.tabifyDockWidget(self.eigen_dock, self.compare_dock)  # a tab beside the eigenvectors
        self.eigen_dock.raise_()
        self.compare_dock.hide()
        self.compare_dock.visibilityChanged.connect(self.compare.set_active)
        self.berkeley = BerkeleyBrowser(self.model, self)
        self.addDockWidget(Qt.LeftDockWidgetArea, self.berkeley)
        self.berkeley.hide()
        self._build_status()
        self._build_actions()
        self.autosave = persistence.Autosave(self.model, self)
        self._connect()
        if notes:  # a bad stored setting: dropped by name, said once
            self.controller.error(notes[-1])
            recovery.notify(self, "\n".join(notes))
        self.setAcceptDrops(True)
        self.resize(1280, 800)
        geo = persistence.settings().value("geometry")
        if geo is not None:
            self.restoreGeometry(geo)
        if self.screen() is not None:
            self.fit_to(self.screen().availableGeometry())
        # Everything alive now (modules, widgets) lives as long as the app: keep it out of the
        # garbage collector's full passes, which otherwise stall the GUI thread 50-250 ms.
        gc.freeze()

    # -- construction ---------------------------------------------------------------
    def _build_status(self):
        self.status = QLabel("")
        self.progress = QLabel("")
        self.busy = LoadBar()  # busy while computing; a long load's steps
        self._err_timer = QTimer(self, singleShot=True, interval=6000)
        self._err_timer.timeout.connect(lambda: self.statusBar().setStyleSheet(""))
        self.statusBar().addWidget(self.status, 1)
        self.autosave_badge = AutosaveBadge()
        self.statusBar().addPermanentWidget(self.autosave_badge)
        self.statusBar().addPermanentWidget(self.progress)
        self.statusBar().addPermanentWidget(self.busy)

    def _build_actions(self):
        tb = QToolBar("Tools")
        self.addToolBar(tb)
        grp = QActionGroup(self)
        for name, key, tool in (("Must-link", "M", MUST), ("Cannot-link", "C", CANNOT),
                                ("Block", "B", BLOCK), ("Brush", "P", BRUSH), ("Erase", "E", ERASE)):
            a = QAction(f"{name} ({key})", self, checkable=True, shortcut=QKeySequence(key))
            a.triggered.connect(lambda _=False, t=tool: setattr(self.canvas.view, "tool", t))
            grp.addAction(a)
            tb.addAction(a)
            a.setChecked(tool == MUST)
        for k in range(1, 10):
            a = QAction(str(k), self, shortcut=QKeySequence(str(k)))
            a.triggered.connect(lambda _=False, k=k: self._set_block_label(k))
            self.addAction(a)
        tb.addSeparator()
        undo = fixed_undo_action(self, self.model.undo_group, "Undo", [QKeySequence.Undo])
        redo = fixed_undo_action(self, self.model.undo_group, "Redo",
                                 [QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        clear = QAction("Clear all", self, triggered=self.model.clear, shortcut=QKeySequence(CLEAR_ALL_KEY))
        for a in (undo, redo, clear):
            tb.addAction(a)
        self._file_menu()
        em = self.menuBar().addMenu("&Edit")
        for a in (undo, redo, clear):
            em.addAction(a)
        self._view_menu()
        add_help_menu(self)

    def _file_menu(self) -> None:
        """Open, constraints, the Berkeley set's keys, recent files, exports, Quit."""
        fm = self.menuBar().addMenu("&File")
        fm.addAction(QAction("Open image…", self, shortcut=QKeySequence.Open, triggered=self.open_dialog))
        fm.addAction(QAction("Load constraints…", self, triggered=self.load_constraints_dialog))
        fm.addAction(QAction("Save constraints…", self, shortcut=QKeySequence.Save,
                             triggered=self.save_constraints_dialog))
        fm.addAction(QAction("Open image set (folder or Berkeley)…", self, triggered=self.open_berkeley_dialog))
        for text, key, fn in (("Next image of the set", "PgDown", lambda: self.berkeley.step(1)),
                              ("Previous image of the set", "PgUp", lambda: self.berkeley.step(-1)),
                              ("Mark image done / not done", "Ctrl+D", lambda: self.berkeley.mark_done())):
            fm.addAction(QAction(text, self, shortcut=QKeySequence(key), triggered=fn))
        self.recent_menu = fm.addMenu("Open recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        fm.addSeparator()
        fm.addAction(QAction("Export label mask…", self, shortcut=QKeySequence("Ctrl+E"), triggered=self.export_mask))
        fm.addAction(QAction("Export colour overlay…", self, triggered=self.export_overlay))
        fm.addAction(QAction("Export eigenvectors…", self, triggered=self.export_eigenvectors))
        fm.addSeparator()
        self.quit_action = QAction("Quit", self, shortcut=QKeySequence("Ctrl+Q"), triggered=self.quit)
        self.quit_action.setShortcutContext(Qt.ApplicationShortcut)
        fm.addAction(self.quit_action)

    def _view_menu(self) -> None:
        """Zoom, the docks (eigenvectors, compare), preview, suggestion, brush size."""
        vm = self.menuBar().addMenu("&View")
        fit = QAction("Zoom to fit", self, triggered=self.canvas.zoom_to_fit)
        fit.setShortcuts([QKeySequence("F"), QKeySequence("Ctrl+0")])
        vm.addAction(fit)
        vm.addAction(QAction("Actual size (100%)", self, shortcut=QKeySequence("Ctrl+1"),
                             triggered=self.canvas.actual_size))
        vm.addAction(self.eigen_dock.toggleViewAction())
        compare = self.compare_dock.toggleViewAction()
        compare.setText("Compare methods")
        compare.setShortcut(QKeySequence("Ctrl+K"))
        compare.triggered.connect(lambda on: on and self.compare_dock.raise_())  # its tab in front
        vm.addAction(compare)
        self.preview_action = QAction("Preview while drawing", self, checkable=True,
                                      checked=persistence.settings().value("preview", True, type=bool),
                                      toggled=self._set_preview)
        self.controller.preview.set_enabled(self.preview_action.isChecked())
        vm.addAction(self.preview_action)
        self.suggest_action = QAction("Suggest the next stroke (G)", self, checkable=True, checked=True,
                                      shortcut=QKeySequence("G"), toggled=self.canvas.ghost.set_visible)
        vm.addAction(self.suggest_action)
        for text, key, factor in (("Brush smaller", "[", 0.8), ("Brush larger", "]", 1.25)):
            a = QAction(text, self, shortcut=QKeySequence(key), triggered=lambda _=False, f=factor: self._resize_brush(f))
            vm.addAction(a)

    def _connect(self):
        m, c, canvas = self.model, self.controller, self.canvas
        canvas.edited.connect(m.apply)
        canvas.previewing.connect(c.preview.request)
        canvas.previewDropped.connect(self._preview_dropped)
        canvas.edited.connect(lambda _e: c.preview.released())
        c.preview.shown.connect(self._show_preview)
        m.imageChanged.connect(self._on_image)
        m.itemInserted.connect(lambda kind, i: canvas.layer.insert(kind, i, m.items(kind)[i]))
        m.itemRemoved.connect(canvas.layer.remove)
        m.constraintsReset.connect(lambda: canvas.layer.reset(m.snapshot()))
        self.side.legend.coloured.connect(canvas.show_result)
        m.suggestionChanged.connect(canvas.show_suggestion)
        canvas.ghost.namer = self.side.legend.name_of
        self.side.legend.coloured.connect(lambda *_: self.compare.follow_colours(self.side.legend.colours))
        self.side.legend.coloured.connect(self.compare.show_main)
        c.statusChanged.connect(lambda *_: self.compare.main_ari(self.model.result, c.ari))  # scored later
        self.compare.main_score = lambda: c.ari
        m.groundTruthChanged.connect(self._show_ground_truth)
        self.berkeley.show_gt.toggled.connect(lambda _on: self._show_ground_truth())
        self.berkeley.imageChosen.connect(c.open_bsds_item)
        self.side.opacity.valueChanged.connect(self._on_overlay_options)
        self.side.boundaries.toggled.connect(self._on_overlay_options)
        c.statusChanged.connect(self._on_status)
        c.progressChanged.connect(self.progress.setText)
        c.busyChanged.connect(self.busy.set_busy)
        c.load.changed.connect(self.busy.set_step)
        self.autosave.failed.connect(lambda msg: c.error(
            f"autosave failed ({msg}): new strokes are not kept if segapp crashes; File → Save constraints… still works"))
        self.autosave.recovered.connect(lambda: self._on_status("autosave works again", "", False))
        self.autosave.failed.connect(self.autosave_badge.show_failure)
        self.autosave.recovered.connect(self.autosave_badge.clear)
        self.autosave_badge.clicked.connect(self.save_constraints_dialog)
        self.autosave.check()
        return_focus_in(self.side, self.canvas)  # M, Ctrl+Z… reach the canvas after a number is entered

    # -- reactions --------------------------------------------------------------------
    def _show_preview(self, result) -> None:
        """A preview is painted in a turn of its own (only the newest waiting one), so it never
        shares a turn of the GUI thread with a result or a mouse event."""
        turns.shared().later((self, "preview"), lambda: self.side.legend.show_result(result, preview=True))

    def _preview_dropped(self) -> None:
        """A previewed drag ended without a stroke: the committed result again."""
        self.controller.preview.released()
        if self.model.result is not None:
            self.side.legend.show_result(self.model.result)

    def _set_preview(self, on: bool) -> None:
        self.controller.preview.set_enabled(on)
        persistence.settings().setValue("preview", bool(on))

    def _set_block_label(self, k):
        self.canvas.set_label(k)
        self.status.setText(f"label {k} for blocks and the brush")

    def _resize_brush(self, factor):
        self.canvas.resize_brush(factor)
        self.status.setText(f"brush radius {self.canvas.brush_radius:.0f} image pixels")

    @property
    def drawing(self) -> bool:
        """Strokes, the legend or the eigenvectors still to be drawn (they draw in later turns,
        :mod:`.turns`; the overlay is drawn in the turn its result arrives)."""
        return (self.canvas.layer.pending or self.side.legend.pending or self.side.eigen.pending
                or turns.shared().waiting())

    def showEvent(self, ev):
        super().showEvent(ev)
        if not getattr(self, "_docks_sized", False):  # the eigenvectors get a quarter of the height
            self._docks_sized = True
            self.resizeDocks([self.eigen_dock], [max(150, self.height() // 4)], Qt.Vertical)

    def fit_to(self, rect) -> None:
        """Fit the window inside ``rect`` (a screen's available geometry): at most 90% of it
        when it opens, and never beyond it."""
        w = min(self.width(), int(rect.width() * 0.9))
        h = min(self.height(), int(rect.height() * 0.9))
        self.resize(w, h)
        frame = self.frameGeometry()
        if not rect.contains(frame):
            frame.moveCenter(rect.center())
            self.move(frame.topLeft())

    def _on_overlay_options(self, *_):
        self.canvas.opacity = self.side.opacity.value() / 100
        self.canvas.boundaries_only = self.side.boundaries.isChecked()
        self.canvas.refresh_overlay()

    def _on_image(self):
        self.canvas.set_image(self.model.display)
        self.setWindowTitle(f"segapp — {self.model.path.name}")
        persistence.add_recent(self.model.path)
        persistence.settings().setValue("last_folder", str(self.model.path.parent))

    def _show_ground_truth(self):
        m = self.model
        shown = self.berkeley.show_gt.isChecked() and m.current_ground_truth() is not None
        self.canvas.set_ground_truth(m.gt_boundaries[m.annotator - 1] if shown else None)

    def _on_status(self, text, tooltip, is_error):
        self.status.setText(text)
        self.status.setToolTip(tooltip)
        style = f"color: {colours.ERROR_TEXT}" if is_error else ""
        if self.statusBar().styleSheet() != style:  # a new style sheet re-polishes the whole bar
            self.statusBar().setStyleSheet(style)
        if is_error:
            self._err_timer.start()

    def keyPressEvent(self, ev):
        if ev.key() == Qt.Key_Space and not ev.isAutoRepeat():
            self.canvas.view.space_down = True  # Space + drag pans
        super().keyPressEvent(ev)

    def keyReleaseEvent(self, ev):
        if ev.key() == Qt.Key_Space and not ev.isAutoRepeat():
            self.canvas.view.space_down = False
        super().keyReleaseEvent(ev)

    def quit(self) -> None:
        """File → Quit (Ctrl+Q): ask about unsaved constraints, then close."""
        if recovery.confirm_quit(self):
            self._confirmed = True
            self.close()

    def stop_by_signal(self, name: str) -> None:
        """SIGINT / SIGTERM: close at once; unsaved constraints stay in the journal."""
        self._stopped_by = self._stopped_by or name
        self._confirmed = True
        self.close()

    def closeEvent(self, ev):
        if ev.spontaneous() and not self._confirmed and not recovery.confirm_quit(self):
            ev.ignore()  # the window manager's close button: the user chose to stay
            return
        self.controller.shutdown()
        self.compare.shutdown()
        self.autosave.close(keep_unsaved=self._stopped_by is not None)
        persistence.settings().setValue("geometry", self.saveGeometry())
        persistence.save_settings(self.model)
        super().closeEvent(ev)

    # -- Berkeley, drag and drop, recent ----------------------------------------------
    def open_berkeley_dialog(self):
        d = QFileDialog.getExistingDirectory(self, "Open a folder of images, or a Berkeley folder (the one "
                                             "holding images/ and groundTruth/)",
                                             persistence.settings().value("last_folder", ""))
        if d:
            self.open_berkeley(d)

    def open_berkeley(self, root) -> bool:
        try:
            self.berkeley.open_folder(root)
        except core.SegappError as e:
            self.controller.error(str(e))
            return False
        # a good folder replaces what an earlier, rejected one said
        what = "Berkeley folder" if self.berkeley.items[0].split else "Image set"
        self.controller.statusChanged.emit(f"{what}: {len(self.berkeley.items)} images in {root}", "",
                                           False)
        return True

    def dragEnterEvent(self, ev):
        if ev.mimeData().hasUrls():
            ev.acceptProposedAction()

    def dropEvent(self, ev):
        urls = [u.toLocalFile() for u in ev.mimeData().urls() if u.isLocalFile()]
        if urls:
            self.controller.open_image(urls[0])
            ev.acceptProposedAction()

    def _fill_recent(self):
        self.recent_menu.clear()
        for p in persistence.recent():
            self.recent_menu.addAction(Path(p).name, lambda p=p: self.controller.open_image(p)).setToolTip(p)
        if self.recent_menu.isEmpty():
            self.recent_menu.addAction("(none)").setEnabled(False)

    # -- file dialogs ---------------------------------------------------------------
    def _save_path(self, title, suffix, filt="PNG (*.png)"):
        """Ask where to write; the dialog starts where the user last saved (else the image's
        folder), not in the data set's folder."""
        st = persistence.settings()
        folder = Path(st.value("last_save_folder", "") or st.value("last_folder", "") or ".")
        stem = self.model.path.stem if self.model.path else "segapp"
        path, _ = QFileDialog.getSaveFileName(self, title, str(folder / f"{stem}_{suffix}"), filt)
        if path:
            st.setValue("last_save_folder", str(Path(path).parent))
        return path

    def open_dialog(self):
        p, _ = QFileDialog.getOpenFileName(self, "Open image", persistence.settings().value("last_folder", ""),
                                           IMAGE_FILTER)
        if p:
            self.controller.open_image(p)

    def load_constraints_dialog(self):
        p, _ = QFileDialog.getOpenFileName(self, "Load constraints", "", "JSON (*.json)")
        if p:
            self.controller.load_constraints(p)

    def save_constraints_dialog(self):
        p = self._save_path("Save constraints", "constraints.json", "JSON (*.json)")
        if p:
            self.controller.save_constraints(p)

    def _export(self, kind, title, path):
        path = path or self._save_path(title, f"{kind}.png")
        if path:
            self.controller.export(kind, path, self.canvas.opacity, self.canvas.boundaries_only)

    def export_mask(self, path=None):
        """8-bit PNG of label indices, default name ``<stem>_labels.png`` (written by the worker)."""
        self._export("labels", "Export label mask", path)

    def export_overlay(self, path=None):
        self._export("overlay", "Export colour overlay", path)

    def export_eigenvectors(self, path=None):
        self._export("eigenvectors", "Export eigenvectors", path)
