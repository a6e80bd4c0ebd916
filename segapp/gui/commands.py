"""Undo commands: each holds only what changed (one item and its place, or both whole sets)."""

from __future__ import annotations

from PySide6.QtGui import QUndoCommand

NAMES = {"must_link": "must-link", "cannot_link": "cannot-link", "blocks": "block"}


class AddItem(QUndoCommand):
    """One link or block added at the end of its list."""

    def __init__(self, model, kind, item):
        super().__init__(f"add {NAMES[kind]}")
        self.model, self.kind, self.item = model, kind, item
        self.index = len(model.items(kind))

    def redo(self):
        self.model._insert(self.kind, self.index, self.item)

    def undo(self):
        self.model._remove_at(self.kind, self.index)


class RemoveItem(QUndoCommand):
    """One link or block erased: the item and its position."""

    def __init__(self, model, kind, index):
        super().__init__(f"erase {NAMES[kind]}")
        self.model, self.kind, self.index = model, kind, index
        self.item = model.items(kind)[index]

    def redo(self):
        self.model._remove_at(self.kind, self.index)

    def undo(self):
        self.model._insert(self.kind, self.index, self.item)


class ReplaceAll(QUndoCommand):
    """Clear all, load a file, restore a session: the whole set is what changed."""

    def __init__(self, model, new: dict, text: str):
        super().__init__(text)
        self.model, self.old, self.new = model, model.snapshot(), new

    def redo(self):
        self.model._reset(self.new)

    def undo(self):
        self.model._reset(self.old)
