"""The session model: image, constraints, method, parameters, result; every edit undoable."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

import core

# The GUI opens with csp, core.segment's default: on the simulated-user benchmark (README, 200
# training images) it has the best mean ARI after 10 rounds for K = 3 and is far ahead for the
# GUI's default of K = 2 (its paper's two-way setting, the sign of u*).
DEFAULT_METHOD = "csp"


KINDS = ("must_link", "cannot_link", "blocks")


def _with(c: core.Constraints, kind: str, items: tuple) -> core.Constraints:
    parts = {"must_link": c.must_link, "cannot_link": c.cannot_link, "blocks": c.blocks}
    parts[kind] = items
    return core.Constraints(parts["must_link"], parts["cannot_link"], parts["blocks"])


class AddItem(QUndoCommand):
    """One link or block added: holds only that item."""

    def __init__(self, model, kind, item, text):
        super().__init__(text)
        self.model, self.kind, self.item = model, kind, item

    def redo(self):
        c = self.model.constraints
        self.model._set_constraints(_with(c, self.kind, getattr(c, self.kind) + (self.item,)))

    def undo(self):
        c = self.model.constraints
        self.model._set_constraints(_with(c, self.kind, getattr(c, self.kind)[:-1]))


class RemoveItem(QUndoCommand):
    """One link or block erased: holds the item and its position."""

    def __init__(self, model, kind, index, text="erase"):
        super().__init__(text)
        self.model, self.kind, self.index = model, kind, index
        self.item = getattr(model.constraints, kind)[index]

    def redo(self):
        items = list(getattr(self.model.constraints, self.kind))
        items.pop(self.index)
        self.model._set_constraints(_with(self.model.constraints, self.kind, tuple(items)))

    def undo(self):
        items = list(getattr(self.model.constraints, self.kind))
        items.insert(self.index, self.item)
        self.model._set_constraints(_with(self.model.constraints, self.kind, tuple(items)))


class ReplaceAll(QUndoCommand):
    """Clear all / load a file: the whole set is what changed."""

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
        item = getattr(core.Constraints(**{kind: [(r1, c1, r2, c2)]}), kind)[0]  # validated form
        self.undo.push(AddItem(self, kind, item, "must-link" if kind == "must_link" else "cannot-link"))

    def add_block(self, block: core.Block):
        self.undo.push(AddItem(self, "blocks", block, f"block {block.label}"))

    def remove(self, kind: str, index: int):
        self.undo.push(RemoveItem(self, kind, index))

    def clear(self):
        if self.constraints:
            self.undo.push(ReplaceAll(self, core.Constraints(), "clear all"))

    def set_constraints(self, c: core.Constraints, text="load constraints"):
        self.undo.push(ReplaceAll(self, c, text))

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
