"""The controller: connects the session model to the worker and to the file thread.

Re-segment policy: any change of image, constraints, method, number of segments or a
parameter requests a segmentation at once; the runner coalesces, so while one runs only the
newest waits and a stale result is never shown. Files are read and written in the file
thread, segmentations, scores and exports in the worker process; the GUI thread only hands
data over. The controller also words the status bar.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal

from segapp.core.constraints import Kind
from segapp.worker.messages import Op
from segapp.core import render

from . import files
from .background import Background
from .busy_clock import BusyClock
from .load_progress import LoadSteps
from .preview import Preview
from .runner import SegmentRunner
from .status_text import result_line, result_tooltip


class Controller(QObject):
    """Signals

    statusChanged(text, tooltip, is_error) : the status bar's line
    progressChanged(text) : what is being prepared or computed now and, for a computation, for
        how long (``csp on 707 nodes… 0.4 s``, rewritten while it runs; "" when nothing is)
    busyChanged(bool)
    exported(path) : an export was written
    saved(path) : a constraint file was written
    """

    statusChanged = Signal(str, str, bool)
    progressChanged = Signal(str)
    busyChanged = Signal(bool)
    exported = Signal(str)
    saved = Signal(str)

    def __init__(self, model, runner: SegmentRunner | None = None):
        super().__init__()
        self.model = model
        self.runner = runner or SegmentRunner()
        self.files = Background(self)
        self.clock = BusyClock(self)
        self.clock.textChanged.connect(self.progressChanged)
        self.load = LoadSteps(self)  # a long load's steps, for the status bar's bar
        self.ari: float | None = None  # of the shown result against the chosen annotator
        self._gt_token = 0
        self._loading = None  # (path, image token) of the constraint file being read
        model.imageChanged.connect(self._on_image)
        model.constraintsChanged.connect(self.resegment)
        model.settingsChanged.connect(self.resegment)
        model.groundTruthChanged.connect(self._on_ground_truth)
        model.errorOccurred.connect(self.error)
        self.preview = Preview(model)
        self.preview.paused.connect(lambda text: self.statusChanged.emit(text, "", False))
        r = self.runner
        r.finished.connect(self._on_result)
        r.suggested.connect(model.set_suggestion)
        r.failed.connect(lambda rid, msg: (self.load.answered(rid), self.error(msg)))
        r.progress.connect(self.clock.start)
        r.progressOf.connect(self.load.worker_says)
        r.busyChanged.connect(self._on_busy)
        r.taskDone.connect(self._on_task)
        r.taskFailed.connect(self._on_task_failed)

    @property
    def idle(self) -> bool:
        """Nothing being read, written or computed."""
        return self.files.idle and self.runner.idle

    # -- the re-segment policy ----------------------------------------------------------
    def resegment(self) -> None:
        m = self.model
        if m.image is None:
            return
        s = m.snapshot()
        shown = m.result.rid if m.result is not None else None  # earlier strokes keep their segments
        self.runner.request(m.image_token, s[Kind.MUST_LINK], s[Kind.CANNOT_LINK], s[Kind.BLOCK], m.method,
                            m.n_segments, m.params, order=s["order"], previous=shown)

    def _on_image(self) -> None:
        m = self.model
        self.runner.set_image(m.image_token, m.image)
        h, w = m.shape
        self.load.image_sent(self.runner.latest)
        self.progressChanged.emit(f"sending the {w}×{h} image to the worker…")

    def _on_ground_truth(self) -> None:
        self._gt_token += 1
        self.runner.set_ground_truth(self._gt_token, self.model.current_ground_truth())
        self.ari = None
        if self.model.result is not None:
            self.runner.call(Op.SCORE, self.model.result.rid)
            self._show_result()

    def _on_result(self, rid, result) -> None:
        current = result.ari_token == self._gt_token
        self.ari = result.ari if current else None
        if not current and self.model.current_ground_truth() is not None:
            self.runner.call(Op.SCORE, rid)  # scored against an annotator since replaced
        self.model.set_result(result)
        self.load.answered(rid)
        self._show_result()

    def _on_task(self, name, value) -> None:
        if name == Op.SCORE:
            rid, token, ari = value
            if self.model.result is not None and self.model.result.rid == rid and token == self._gt_token:
                self.ari = ari
                self._show_result()
        elif name == Op.EXPORT:
            self.statusChanged.emit(f"wrote {value}", "", False)
            self.exported.emit(value)
        elif name == Op.READ_CONSTRAINTS:
            self._constraints_read(*value)

    def _on_task_failed(self, name, message) -> None:
        if name == Op.READ_CONSTRAINTS:
            self._loading = None
            self.progressChanged.emit("")
        self.error(message)

    def _on_busy(self, busy: bool) -> None:
        if not busy:
            self.clock.stop()
            self.progressChanged.emit("")
        self.busyChanged.emit(busy)

    def _show_result(self) -> None:
        m = self.model
        line = result_line(m.result, m.counts(), self.ari, m.annotator)
        self.statusChanged.emit(line, result_tooltip(m.result), False)

    def error(self, message: str) -> None:
        self.statusChanged.emit(f"⚠ {message}", message, True)

    # -- files ----------------------------------------------------------------------
    def open_image(self, path, then=None) -> None:
        """Decode ``path`` in the file thread, then show it (and call ``then()``).

        A file that cannot be read leaves image, constraints and result as they were.
        """
        self.progressChanged.emit(f"opening {Path(path).name}…")
        self.load.start()

        def done(value):
            self.model.set_image(path, *value)
            if then is not None:
                then()

        def failed(message):
            self.progressChanged.emit("")
            self.load.cancel()
            self.model.errorOccurred.emit(message)

        self.files.run(lambda: files.decode_image(path), done, failed)

    def open_bsds_item(self, item) -> None:
        """A Berkeley image and, when it has one, its human ground truth."""
        then = None if item.ground_truth is None else (lambda: self.load_ground_truth(item.ground_truth))
        self.open_image(item.image, then)

    def load_ground_truth(self, path) -> None:
        token = self.model.image_token

        def done(value):
            if self.model.image_token == token:  # still the image it belongs to
                self.model.set_ground_truth(*value)

        self.files.run(lambda: files.read_ground_truth(path), done, self.error)

    def load_constraints(self, path) -> None:
        """Read and validate a constraint file in the worker process (a long JSON parse there
        holds no lock the GUI thread needs); then one undoable replace."""
        if self.model.shape is None:
            return self.error("open an image before loading constraints")
        self._loading = (str(path), self.model.image_token)
        self.progressChanged.emit(f"reading {Path(path).name}…")
        self.runner.call(Op.READ_CONSTRAINTS, str(path), self.model.shape)

    def _constraints_read(self, path, constraints) -> None:
        if self._loading != (path, self.model.image_token):
            return self.error(f"{Path(path).name} was read for another image; load it again")
        self._loading = None
        m = self.model
        m.set_constraints(constraints)
        m.mark_saved(m.undo, m.undo.index(), m.path)  # as in the file: nothing unsaved

    def save_constraints(self, path) -> None:
        m = self.model
        snapshot, stack, index, image = m.snapshot(), m.undo, m.undo.index(), m.path

        def done(p):
            m.mark_saved(stack, index, image)
            self.statusChanged.emit(f"saved {p}", "", False)
            self.saved.emit(p)

        self.files.run(lambda: files.write_constraints(path, snapshot), done, self.error)

    def export(self, kind: str, path, opacity: float = render.OVERLAY_OPACITY, boundaries_only: bool = False) -> None:
        """Write the shown result at full size (in the worker): labels, overlay or eigenvectors."""
        if self.model.result is None:
            return self.error("no segmentation to export yet")
        self.runner.call(Op.EXPORT, kind, str(path), self.model.result.rid, opacity, boundaries_only)

    def shutdown(self) -> None:
        self.clock.stop()
        self.preview.shutdown()
        self.runner.shutdown()
        self.files.shutdown()
