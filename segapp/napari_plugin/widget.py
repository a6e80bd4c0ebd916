"""The dock widget: choose the layers, the method and K; the segments land in a Labels layer.

It works on any viewer that has ``layers`` (napari's ``Viewer``, or a ``ViewerModel``
without a canvas). :func:`core.segment` runs in a thread of its own, never on napari's GUI
thread: one run at a time, and when edits come while one runs, only the newest is run next
(each run carries a request id; an older answer is never shown). The previous result of the
same image is passed on as the window passes the result on screen, so an edit does not
renumber the segments. A bad stroke or image gives a one-line message under the button and
keeps the output layer as it was.

Live mode re-segments after each finished edit of a chosen layer (a shape or point added,
moved or removed; a brush stroke painted; a point's label changed) and after each change of
the form; napari's "…ing" events (before an edit lands) are ignored.
"""

from __future__ import annotations

import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from qtpy.QtCore import QObject, Qt, Signal
from qtpy.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QLabel, QPushButton, QSpinBox,
                            QVBoxLayout, QWidget)

from segapp import core
from segapp.worker.process import describe_error as describe  # one wording for every failure

from . import layers as L

OUTPUT = "segapp segments"
NONE = "(none)"
DEFAULT_METHOD = "e2cp"
PREPARED_KEPT = 2  # images whose graphs are kept (the newest)

# form row: (attribute, label, napari layer class name, words in a layer name that pick it)
LAYER_ROWS = (
    ("image_box", "Image", "Image", ()),
    ("must_box", "Must-links (lines)", "Shapes", ("must", "same")),
    ("cannot_box", "Cannot-links (lines)", "Shapes", ("cannot", "differ")),
    ("points_box", "Labelled points", "Points", ("point", "click")),
    ("labels_box", "Brush regions", "Labels", ("brush", "region", "scribble")),
)
# the layer events after which live mode re-segments
EDIT_EVENTS = ("data", "paint", "features")


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
        self._closed = False
        self._prepared: dict = {}  # image layer id -> (image digest, Prepared); used in the thread only
        self._previous: dict = {}  # image layer id -> (K, Segmentation)
        self._build_form()
        events = self.viewer.layers.events
        for ev in (events.inserted, events.removed, events.moved):
            ev.connect(self._on_layers_changed)
        self._on_layers_changed(first=True)

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
            self.method_box.setItemData(i, f"{spec.plain}\n({spec.reference})", Qt.ToolTipRole)
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
        self.k_box.valueChanged.connect(self._edited)
        for attr, *_ in LAYER_ROWS:
            getattr(self, attr).currentIndexChanged.connect(self._edited)

    def _on_method(self, name: str) -> None:
        self.about.setText(core.METHODS[name].plain)
        self._edited()

    def _layers_of(self, cls: str) -> list:
        return [ly for ly in self.viewer.layers if type(ly).__name__ == cls and ly.name != OUTPUT]

    def _on_layers_changed(self, event=None, first: bool = False) -> None:
        """Refill every layer box (the layers themselves are the items' data, so a renamed
        layer stays chosen); a layer whose name says what it is (``must-links``, ``brush``…)
        is picked for its row when it is added, or when the widget opens."""
        new = [getattr(event, "value", None)] if event is not None and event.type == "inserted" else []
        if first:
            new = list(self.viewer.layers)
        for attr, _label, cls, words in LAYER_ROWS:
            box = getattr(self, attr)
            keep = box.currentData()
            for ly in new:
                if type(ly).__name__ == cls and ly.name != OUTPUT and any(w in ly.name.lower() for w in words) \
                        and (keep is None or not first):
                    keep = ly
            box.blockSignals(True)
            box.clear()
            if cls != "Image":
                box.addItem(NONE, None)
            for ly in self._layers_of(cls):
                box.addItem(ly.name, ly)
            index = next((i for i in range(box.count()) if box.itemData(i) is keep and keep is not None), 0)
            box.setCurrentIndex(index)
            box.blockSignals(False)
        for ly in self.viewer.layers:  # napari ignores a callback connected twice
            if ly.name != OUTPUT:
                ly.events.name.connect(self._on_renamed)
                for name in EDIT_EVENTS:
                    if hasattr(ly.events, name):
                        getattr(ly.events, name).connect(self._on_data)

    def _on_renamed(self, event=None) -> None:
        for attr, *_ in LAYER_ROWS:
            box = getattr(self, attr)
            for i in range(box.count()):
                if box.itemData(i) is not None:
                    box.setItemText(i, box.itemData(i).name)

    def _chosen(self, attr: str):
        layer = getattr(self, attr).currentData()
        return layer if layer is not None and layer in self.viewer.layers else None

    def _on_data(self, event=None) -> None:
        if str(getattr(event, "action", "")).endswith("ing"):  # before the edit lands
            return
        source = getattr(event, "source", None)
        if source is None or any(source is self._chosen(a) for a, *_ in LAYER_ROWS):
            self._edited()

    def _edited(self, *_args) -> None:
        if self.live_box.isChecked() and self._chosen("image_box") is not None and self._has_constraints():
            self.request()

    def _has_constraints(self) -> bool:
        if any(self._chosen(a) is not None and len(self._chosen(a).data) > 0
               for a in ("must_box", "cannot_box", "points_box")):
            return True
        brush = self._chosen("labels_box")
        return brush is not None and bool(np.any(np.asarray(brush.data)))

    # --- a run ---------------------------------------------------------------------------
    def request(self) -> None:
        """Segment with the form as it stands (after the run in progress, if any)."""
        if self._closed:
            return
        self._request += 1
        if self._running:
            self._pending = True
            self.status.setText("… newer edit waiting")
            return
        image_layer = self._chosen("image_box")
        if image_layer is None:
            self._fail("there is no image layer to segment: open an image first")
            return
        try:
            image = L.image_of(image_layer)
            cons = L.constraints_from_layers(image_layer, self._chosen("must_box"), self._chosen("cannot_box"),
                                             self._chosen("points_box"), self._chosen("labels_box"))
        except Exception as e:  # noqa: BLE001 - the user sees a message, the output stays
            self._fail(describe(e))
            return
        method, k = self.method_box.currentText(), self.k_box.value()
        previous = self._previous.get(id(image_layer))
        self._running = True
        self.status.setText(f"segmenting with {method}…")
        self._pool.submit(self._compute, self._request, image, cons, method, k, previous, image_layer)

    def _compute(self, rid, image, cons, method, k, previous, image_layer) -> None:
        """In the compute thread: :func:`core.segment` on the prepared image (kept for the
        newest :data:`PREPARED_KEPT` images; an edited image is prepared anew)."""
        try:
            key, digest = id(image_layer), (image.shape, image.dtype.str, hash(image.tobytes()))
            held = self._prepared.pop(key, None)
            prep = held[1] if held is not None and held[0] == digest else core.Prepared(image)
            self._prepared[key] = (digest, prep)
            while len(self._prepared) > PREPARED_KEPT:
                self._prepared.pop(next(iter(self._prepared)))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", core.SegappWarning)  # kept in seg.warnings
                prev = previous[1] if previous is not None and previous[0] == k and held is not None \
                    and held[0] == digest else None
                seg = core.segment(prep, cons, method=method, n_segments=k, previous=prev)
            self._answer.ready.emit(rid, (seg, k, image_layer), None)
        except Exception as e:  # noqa: BLE001 - every failure reaches the GUI thread as a message
            self._answer.ready.emit(rid, None, describe(e))

    def _deliver(self, rid: int, run, message) -> None:
        self._running = False
        if self._closed:
            return
        if self._pending:  # a newer edit came while this ran: show nothing older, run it
            self._pending = False
            self.request()
            return
        if rid != self._request:
            return
        if run is None:
            self._fail(message)
            return
        seg, k, image_layer = run
        if image_layer not in self.viewer.layers:
            self._fail("the image layer was removed while it was segmented")
            return
        self._write(seg, k, image_layer)

    def _write(self, seg, k: int, image_layer) -> None:
        """The output layer (made just above the image, the user's selection kept)."""
        self._previous[id(image_layer)] = (k, seg)
        values = seg.labels.astype(np.int32) + 1  # segment i shows as value i + 1 (0 is napari's empty)
        layers = self.viewer.layers
        if OUTPUT in layers:
            out = layers[OUTPUT]
            out.data = values
            out.scale, out.translate = image_layer.scale, image_layer.translate
        else:
            active = layers.selection.active
            out = self.viewer.add_labels(values, name=OUTPUT, opacity=0.45, scale=image_layer.scale,
                                         translate=image_layer.translate)
            layers.move(layers.index(out), layers.index(image_layer) + 1)
            layers.selection.active = active
        shares = np.bincount(seg.labels.ravel(), minlength=k) / seg.labels.size
        said = ", ".join(f"{i + 1}: {s:.0%}" for i, s in enumerate(shares))
        note = f" — {seg.warnings[0]}" if seg.warnings else ""
        self.status.setText(f"{seg.method}, {seg.seconds:.2f} s; segments {said}{note}")
        self.segmented.emit(seg)

    def _fail(self, message: str) -> None:
        self.status.setText(f"Could not segment: {message}")
        self.failed.emit(message)

    def close_down(self) -> None:
        """Stop listening and computing (the dock closed or the widget is deleted)."""
        if self._closed:
            return
        self._closed = True
        events = self.viewer.layers.events
        for ev in (events.inserted, events.removed, events.moved):
            ev.disconnect(self._on_layers_changed)
        for ly in self.viewer.layers:
            ly.events.name.disconnect(self._on_renamed)
            for name in EDIT_EVENTS:
                if hasattr(ly.events, name):
                    getattr(ly.events, name).disconnect(self._on_data)
        self._pool.shutdown(wait=False, cancel_futures=True)

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.close_down()
        super().closeEvent(event)

    def hideEvent(self, event) -> None:  # noqa: N802 - napari removes a dock by reparenting it
        if self.parent() is None:
            self.close_down()
        super().hideEvent(event)
