"""The side panel: method, segments, the segment legend, overlay settings and (scrolling)
parameter forms. The eigenvector view is made here and placed by the window (a dock).

A view of the session model: it shows what the model holds (after a method switch the
forms show that method's parameters and the unchanged representation parameters) and
sends the user's changes to it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QFrame, QGroupBox, QLabel, QScrollArea, QSlider,
                               QSpinBox, QVBoxLayout, QWidget)

from segapp import core
from segapp.core import render

from .eigen_view import EigenView
from .legend import Legend
from .param_form import ParamForm


class SidePanel(QWidget):
    def __init__(self, model):
        super().__init__()
        self.model = model
        lay = QVBoxLayout(self)
        lay.addWidget(self._method_group())
        sbox = QGroupBox("Segments")
        self.legend = Legend(model)
        QVBoxLayout(sbox).addWidget(self.legend)
        sbox.setMinimumHeight(150)
        lay.addWidget(sbox, 3)
        lay.addWidget(self._overlay_group())
        lay.addWidget(self._scrolling_forms(), 2)
        self.eigen = EigenView()
        self._show_all()
        self.method_box.currentTextChanged.connect(model.set_method)
        self.k_box.valueChanged.connect(model.set_segments)
        self.params.changed.connect(self._set_param)
        self.rep_form.changed.connect(self._set_param)
        model.methodChanged.connect(lambda _m: self._show_method())
        model.segmentsChanged.connect(self.k_box.setValue)
        model.paramsChanged.connect(lambda name: name or self._show_all())
        model.resultChanged.connect(self.eigen.set_result)

    def _method_group(self) -> QGroupBox:
        """The method box (with a plain-words line under it) and the segment count."""
        box = QGroupBox("Method")
        f = QFormLayout(box)
        self.method_box = QComboBox()
        self.method_box.addItems(list(core.METHODS))
        for i, spec in enumerate(core.METHODS.values()):
            self.method_box.setItemData(i, f"{spec.plain}\n({spec.reference})", Qt.ToolTipRole)
        self.method_about = QLabel()  # what the chosen method does, in plain words
        self.method_about.setWordWrap(True)
        self.method_about.setMinimumHeight(3 * self.method_about.fontMetrics().lineSpacing() + 4)  # never clipped
        self.k_box = QSpinBox()
        self.k_box.setRange(2, render.MAX_SEGMENTS)
        f.addRow("method", self.method_box)
        f.addRow(self.method_about)
        f.addRow("segments", self.k_box)
        return box

    def _overlay_group(self) -> QGroupBox:
        obox = QGroupBox("Overlay")
        of = QFormLayout(obox)
        self.opacity = QSlider(Qt.Horizontal)
        self.opacity.setRange(0, 100)
        self.opacity.setValue(round(render.OVERLAY_OPACITY * 100))
        self.boundaries = QCheckBox("boundaries only")
        of.addRow("opacity", self.opacity)
        of.addRow(self.boundaries)
        return obox

    def _scrolling_forms(self) -> QScrollArea:
        """The method's and the representation's parameter forms, in one scrolling area: a
        method with many parameters never makes the window grow."""
        forms = QWidget()
        flay = QVBoxLayout(forms)
        flay.setContentsMargins(0, 0, 0, 0)
        pbox = QGroupBox("Parameters")
        self.params = ParamForm()
        QVBoxLayout(pbox).addWidget(self.params)
        flay.addWidget(pbox)
        rbox = QGroupBox("Working representation")
        self.rep_form = ParamForm()
        QVBoxLayout(rbox).addWidget(self.rep_form)
        flay.addWidget(rbox)
        flay.addStretch(1)
        self.scroll = QScrollArea()
        self.scroll.setWidget(forms)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.NoFrame)
        self.scroll.setMinimumHeight(40)  # scrolls: one row at the least, so the boxes above never clip
        return self.scroll

    def _show_method(self) -> None:
        m = self.model.method
        spec = core.METHODS[m]
        if self.method_box.currentText() != m:
            self.method_box.setCurrentText(m)
        self.method_about.setText(spec.plain)
        self.method_about.setToolTip(f"{spec.description}\n{spec.reference}")
        self.params.set_specs(spec.params, spec.reference, self.model.method_params.get(m, {}))

    def _show_all(self) -> None:
        self._show_method()
        self.k_box.setValue(self.model.n_segments)
        self.rep_form.set_specs(core.REPRESENTATION_PARAMS, "segapp working representation", self.model.rep_params)

    def _set_param(self, name, value) -> None:
        if not self.model.set_param(name, value):
            self._show_all()  # refused: the forms show again what the model holds
