"""A parameter form generated from a method's ParamSpecs (type, range, default, help)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QLineEdit, QSpinBox, QWidget


def tooltip(spec, reference: str) -> str:
    """Plain words first, the paper's statement after: ``plain\n(Paper: help)\nreference\nrange``."""
    said = f"{spec.plain}\n(Paper: {spec.help})" if spec.plain else spec.help
    return f"{said}\n{reference}\nrange {spec.range_text()}"


class ParamForm(QWidget):
    changed = Signal(str, object)

    def __init__(self):
        super().__init__()
        self.form = QFormLayout(self)

    def set_specs(self, specs, reference: str, values: dict | None = None):
        """One editor per spec, showing ``values[name]`` where given, else the default."""
        while self.form.rowCount():
            self.form.removeRow(0)
        values = values or {}
        for p in specs:
            w = self._editor(p, values.get(p.name))
            w.setToolTip(tooltip(p, reference))
            self.form.addRow(p.name, w)

    def _editor(self, p, value=None):
        if value is not None:
            try:
                value = p.coerce(value)
            except Exception:  # noqa: BLE001 - a stale stored value: show the default
                value = None
        if value is not None and p.default is not None:
            p = type(p)(**{**p.__dict__, "default": value})
        if p.choices is not None:
            w = QComboBox()
            w.addItems(list(p.choices))
            w.setCurrentText(str(p.default))
            w.currentTextChanged.connect(lambda v, n=p.name: self.changed.emit(n, v))
        elif p.type is bool:
            w = QCheckBox()
            w.setChecked(bool(p.default))
            w.toggled.connect(lambda v, n=p.name: self.changed.emit(n, v))
        elif p.type is int:
            w = QSpinBox()
            w.setRange(int(p.low if p.low is not None else -10**9), int(p.high if p.high is not None else 10**9))
            w.setValue(int(p.default))
            w.valueChanged.connect(lambda v, n=p.name: self.changed.emit(n, v))
        elif p.type is float and p.default is not None and not p.log_scale:
            w = QDoubleSpinBox()
            w.setDecimals(4)
            w.setRange(p.low if p.low is not None else -1e12, p.high if p.high is not None else 1e12)
            w.setSingleStep(max(abs(p.default) / 10, 1e-4))
            w.setValue(p.default)
            w.valueChanged.connect(lambda v, n=p.name: self.changed.emit(n, v))
        else:  # resolved at run time, or log-scale: free text, empty = default
            w = QLineEdit()
            w.setPlaceholderText("default" if p.default is None else repr(p.default))
            if value is not None:
                w.setText(repr(value))
            w.editingFinished.connect(lambda w=w, n=p.name: self.changed.emit(n, w.text().strip() or None))
        return w
