"""The dock widget: choose the layers, the method and K; the segments land in a Labels layer.

It works on any viewer that has ``layers`` (napari's ``Viewer``, or a ``ViewerModel``
without a canvas). :func:`core.segment` runs in a thread of its own, never on napari's GUI
thread: one run at a time, and when edits come while one runs, only the newest is run next
(each run carries a request id; an older answer is never shown). The previous result of the
same image is passed on as the window passes the result on screen, so an edit does not
renumber the segments. A bad stroke or image gives a one-line message under the button and
keeps the output layer as it was.
"""

from __future__ import annotations

import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from qtpy.QtCore import QObject, Signal
from qtpy.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QLabel, QPushButton, QSpinBox,
                            QVBoxLayout, QWidget)

from segapp import core

from . import layers as L

OUTPUT = "segapp segments"
NONE = "(none)"
DEFAULT_METHOD = "e2cp"

# form row: (attribute, label, napari layer class name, words in a layer name that pick it)
LAYER_ROWS = (
    ("image_box", "Image", "Image", ()),
    ("must_box", "Must-links (lines)", "Shapes", ("must", "same")),
    ("cannot_box", "Cannot-links (lines)", "Shapes", ("cannot", "differ")),
    ("points_box", "Labelled points", "Points", ("point", "click")),
    ("labels_box", "Brush regions", "Labels", ("brush", "region", "scribble")),
)


class _Answer(QObject):
    """Carries a finished run from the compute thread to the GUI thread."""

    ready = Signal(int, object, object)  # request id, (Segmentation, K, image layer) or None, message or None


class SegmentWidget(QWidget):
    """Segment an Image layer with constraints from Shapes, Points and Labels layers.

    Parameters
    ----------
    napari_viewer : napari.Viewer or napari.components.ViewerModel
        Injected by napari when the widget is opened from the Plugins menu.

    Signals
    -------
    segmented(Segmentation)
        After the output layer was written.
    failed(str)
        A run gave no result; the message is also shown in the widget.
    """

    segmented = Signal(object)
    failed = Signal(str)

    def __init__(self, napari_viewer, parent=None):
        super().__init__(parent)
        self.viewer = napari_viewer
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="segapp-napari")
        self._answer = _Answer()
        self._answer.ready.connect(self._deliver)
        self._request = 0
        self._running = False
        self._pending = False
        self._prepared: dict = {}
        self._previous: dict = {}
        self._build_form()
        events = self.viewer.layers.events
        for ev in (events.inserted, events.removed, events.moved):
            ev.connect(self._on_layers_changed)
        self._on_layers_changed()

    # --- the form ---------------------------------------------------------------------------
    def _build_form(self) -> None:
        form = QFormLayout()
        for attr, label, _cls, _words in LAYER_ROWS:
            box = QComboBox()
            setattr(self, attr, box)
            form.addRow(label, box)
        self.method_box = QComboBox()
        for i, (name, spec) in enumerate(core.METHODS.items()):
            self.method_box.addItem(name)
            self.method_box.setItemData(i, f"{spec.plain}\n({spec.reference})", 3)  # Qt.ToolTipRole
        self.method_box.setCurrentText(DEFAULT_METHOD)
        form.addRow("Method", self.method_box)
        self.k_box = QSpinBox()
        self.k_box.setRange(2, 9)
        form.addRow("Segments (K)", self.k_box)
        self.live_box = QCheckBox("Re-segment on every edit")
        self.live_box.setChecked(True)
        form.addRow("", self.live_box)
        self.about = QLabel()
        self.about.setWordWrap(True)
        self.run_button = QPushButton("Segment")
        self.run_button.clicked.connect(self.request)
        self.status = QLabel("Choose an image layer, draw links or points, then Segment.")
        self.status.setWordWrap(True)
        box = QVBoxLayout(self)
        box.addLayout(form)
        box.addWidget(self.about)
        box.addWidget(self.run_button)
        box.addWidget(self.status)
        box.addStretch(1)
        self.method_box.currentTextChanged.connect(self._on_method)
        self._on_method(self.method_box.currentText())
        self.k_box.valueChanged.connect(lambda _v: self._edited())

    def _on_method(self, name: str) -> None:
        self.about.setText(core.METHODS[name].plain)
        self._edited()

    def _layers_of(self, cls: str) -> list:
        return [ly for ly in self.viewer.layers if type(ly).__name__ == cls and ly.name != OUTPUT]

    def _on_layers_changed(self, event=None) -> None:
        """Refill every layer box, keeping each choice while its layer exists; a new layer
        whose name says what it is (``must-links``, ``brush``...) is picked for its row."""
        new = getattr(event, "value", None) if event is not None and event.type == "inserted" else None
        for attr, _label, cls, words in LAYER_ROWS:
            box = getattr(self, attr)
            names = [ly.name for ly in self._layers_of(cls)]
            keep = box.currentText()
            if new is not None and type(new).__name__ == cls and any(w in new.name.lower() for w in words):
                keep = new.name
            box.blockSignals(True)
            box.clear()
            if cls != "Image":
                box.addItem(NONE)
            box.addItems(names)
            if keep in names:
                box.setCurrentText(keep)
            box.blockSignals(False)
        for ly in self.viewer.layers:  # edits of the chosen constraint layers re-segment (Live)
            if ly.name != OUTPUT and not getattr(ly, "_segapp_watched", False):
                ly.events.data.connect(self._on_data)
                ly._segapp_watched = True

    def _chosen(self, attr: str):
        name = getattr(self, attr).currentText()
        return self.viewer.layers[name] if name and name != NONE and name in self.viewer.layers else None

    def _on_data(self, event=None) -> None:
        source = getattr(event, "source", None)
        chosen = [self._chosen(a) for a, *_ in LAYER_ROWS]
        if source is None or any(source is c for c in chosen if c is not None):
            self._edited()

    def _edited(self) -> None:
        if self.live_box.isChecked() and self._chosen("image_box") is not None and self._has_constraints():
            self.request()

    def _has_constraints(self) -> bool:
        return any(self._chosen(a) is not None and len(np.atleast_1d(self._chosen(a).data)) > 0
                   for a in ("must_box", "cannot_box", "points_box")) or (
            self._chosen("labels_box") is not None and bool(np.any(self._chosen("labels_box").data)))

    # --- a run ---------------------------------------------------------------------------
    def request(self) -> None:
        """Segment with the form as it stands (after the run in progress, if any)."""
        self._request += 1
        if self._running:
            self._pending = True
            self.status.setText("… newer edit waiting")
            return
        image_layer = self._chosen("image_box")
        if image_layer is None:
            self._fail(self._request, "there is no image layer to segment: open an image first")
            return
        try:
            image = L.image_of(image_layer)
            cons = L.constraints_from_layers(image_layer, self._chosen("must_box"), self._chosen("cannot_box"),
                                             self._chosen("points_box"), self._chosen("labels_box"))
        except core.SegappError as e:
            self._fail(self._request, str(e))
            return
        method, k = self.method_box.currentText(), self.k_box.value()
        key = (id(image_layer), id(image_layer.data), method)
        rid, previous = self._request, self._previous.get(key[:2])
        self._running = True
        self.status.setText(f"segmenting with {method}…")
        self._pool.submit(self._compute, rid, key, image, cons, method, k, previous, image_layer)

    def _compute(self, rid, key, image, cons, method, k, previous, image_layer) -> None:
        """In the compute thread: :func:`core.segment` on the prepared image."""
        try:
            prep = self._prepared.get(key)
            if prep is None:
                prep = self._prepared[key] = core.prepare(image, method)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", core.SegappWarning)  # kept in seg.warnings
                prev = previous[1] if previous is not None and previous[0] == k else None
                seg = core.segment(prep, cons, method=method, n_segments=k, previous=prev)
            self._answer.ready.emit(rid, (seg, k, image_layer), None)
        except core.SegappError as e:
            self._answer.ready.emit(rid, None, str(e))
        except MemoryError:
            self._answer.ready.emit(rid, None, "out of memory for this image")

    def _deliver(self, rid: int, run, message) -> None:
        self._running = False
        if self._pending:  # a newer edit came while this ran: show nothing older, run it
            self._pending = False
            self.request()
            return
        if rid != self._request:
            return
        if run is None:
            self._fail(rid, message)
            return
        self._write(*run)

    def _write(self, seg, k: int, image_layer) -> None:
        self._previous[(id(image_layer), id(image_layer.data))] = (k, seg)
        values = seg.labels.astype(np.int32) + 1  # segment i shows as value i + 1 (0 is napari's empty)
        if OUTPUT in self.viewer.layers:
            self.viewer.layers[OUTPUT].data = values
        else:
            self.viewer.add_labels(values, name=OUTPUT, opacity=0.45, scale=image_layer.scale,
                                   translate=image_layer.translate)
        shares = np.bincount(seg.labels.ravel(), minlength=k) / seg.labels.size
        said = ", ".join(f"{i + 1}: {s:.0%}" for i, s in enumerate(shares))
        note = f" — {seg.warnings[0]}" if seg.warnings else ""
        self.status.setText(f"{seg.method}, {seg.seconds:.2f} s; segments {said}{note}")
        self.segmented.emit(seg)

    def _fail(self, rid: int, message: str) -> None:
        self.status.setText(f"Could not segment: {message}")
        self.failed.emit(message)

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self._pool.shutdown(wait=False, cancel_futures=True)
        super().closeEvent(event)
