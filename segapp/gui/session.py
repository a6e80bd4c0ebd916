"""The session model: image, constraints, method, parameters, result; every edit undoable."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

import core

# The GUI opens with the method that is on screen fastest after a stroke (bench/gui_latency.py:
# gp-propagation 0.30 s median vs csp 0.60 s on 481x321); core.segment's default stays csp.
DEFAULT_METHOD = "gp-propagation"


class SetConstraints(QUndoCommand):
    """Replace the constraint set (keeps only the before/after objects, which are immutable)."""

    def __init__(self, model, new, text):
        super().__init__(text)
        self.model, self.old, self.new = model, model.constraints, new

    def redo(self):
        self.model._set_constraints(self.new)

    def undo(self):
        self.model._set_constraints(self.old)


class SessionModel(QObject):
    imageChanged = Signal()
    constraintsChanged = Signal()
    settingsChanged = Signal()
    resultChanged = Signal(object)
    errorOccurred = Signal(str)

    def __init__(self):
        super().__init__()
        self.image: np.ndarray | None = None
        self.path: Path | None = None
        self.constraints = core.Constraints()
        self.method = DEFAULT_METHOD
        self.n_segments = 2
        self.params: dict = {}
        self.result = None
        self.undo = QUndoStack(self)

    def open_image(self, path) -> bool:
        """Load ``path``; on failure emit ``errorOccurred`` and keep everything as it was."""
        try:
            img = core.load_image(path)
        except core.SegappError as e:
            self.errorOccurred.emit(str(e))
            return False
        self.image, self.path = img, Path(path)
        self.result = None
        self.undo.clear()
        self.constraints = core.Constraints()
        self.imageChanged.emit()
        self.constraintsChanged.emit()
        return True

    def _set_constraints(self, c):
        self.constraints = c
        self.constraintsChanged.emit()

    def add_link(self, kind: str, r1, c1, r2, c2):
        new = self.constraints.with_link(kind, (r1, c1, r2, c2))
        self.undo.push(SetConstraints(self, new, "must-link" if kind == "must_link" else "cannot-link"))

    def add_block(self, block: core.Block):
        c = self.constraints
        self.undo.push(SetConstraints(self, core.Constraints(c.must_link, c.cannot_link, c.blocks + (block,)),
                                      "block"))

    def remove(self, kind: str, index: int):
        c = self.constraints
        ml, cl, bl = list(c.must_link), list(c.cannot_link), list(c.blocks)
        {"must_link": ml, "cannot_link": cl, "blocks": bl}[kind].pop(index)
        self.undo.push(SetConstraints(self, core.Constraints(ml, cl, bl), "erase"))

    def clear(self):
        if self.constraints:
            self.undo.push(SetConstraints(self, core.Constraints(), "clear all"))

    def set_constraints(self, c: core.Constraints, text="load constraints"):
        self.undo.push(SetConstraints(self, c, text))

    def set_method(self, method: str):
        if method != self.method:
            self.method, self.params = method, {}
            self.settingsChanged.emit()

    def set_segments(self, k: int):
        if k != self.n_segments:
            self.n_segments = k
            self.settingsChanged.emit()

    def set_param(self, name, value):
        if value is None:
            self.params.pop(name, None)
        else:
            self.params[name] = value
        self.settingsChanged.emit()

    def set_result(self, seg):
        self.result = seg
        self.resultChanged.emit(seg)
