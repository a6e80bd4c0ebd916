"""Undo commands: each holds only what changed (one item, its place and its creation sequence
number, or both whole sets). A brush stroke is one block item: one undo step."""

from __future__ import annotations

from PySide6.QtGui import QUndoCommand

from segapp.core.constraints import Kind


class AddItem(QUndoCommand):
    """One link or block added at the end of its list."""

    def __init__(self, model, kind, item):
        region = kind == Kind.BLOCK and item.is_region
        super().__init__("paint region" if region else f"add {Kind(kind).label}")
        self.model, self.kind, self.item = model, kind, item
        self.index = len(model.items(kind))
        self.seq = model.take_seq()

    def redo(self):
        self.model._insert(self.kind, self.index, self.item, self.seq)

    def undo(self):
        self.model._remove_at(self.kind, self.index)


class RemoveItem(QUndoCommand):
    """One link or block erased: the item and its position."""

    def __init__(self, model, kind, index):
        super().__init__(f"erase {Kind(kind).label}")
        self.model, self.kind, self.index = model, kind, index
        self.item = model.items(kind)[index]
        self.seq = model.snapshot()["order"][kind][index]

    def redo(self):
        self.model._remove_at(self.kind, self.index)

    def undo(self):
        self.model._insert(self.kind, self.index, self.item, self.seq)


class ReplaceAll(QUndoCommand):
    """Clear all, load a file, restore a session: the whole set is what changed."""

    def __init__(self, model, new: dict, text: str):
        super().__init__(text)
        self.model, self.old, self.new = model, model.snapshot(), new

    def redo(self):
        self.model._reset(self.new)

    def undo(self):
        self.model._reset(self.old)


CLEAR_ALL_KEY = "Ctrl+Shift+Delete"


def fixed_undo_action(parent, group, text: str, shortcuts):
    """An Undo or Redo action for ``group`` (a QUndoGroup) whose text stays ``text``: what it
    would undo is said in its tooltip, so the toolbar button keeps its width and the buttons
    after it keep their places (Qt's own createUndoAction renames itself "Undo add
    cannot-link" and pushed "Clear all" away under the pointer)."""
    from PySide6.QtGui import QAction

    undo = text == "Undo"
    act = QAction(text, parent, shortcuts=shortcuts)
    act.triggered.connect(group.undo if undo else group.redo)
    act.setEnabled(group.canUndo() if undo else group.canRedo())
    (group.canUndoChanged if undo else group.canRedoChanged).connect(act.setEnabled)

    def describe(what: str) -> None:
        act.setToolTip(f"{text} {what}" if what else text)
        act.setStatusTip(act.toolTip())
    (group.undoTextChanged if undo else group.redoTextChanged).connect(describe)
    return act
