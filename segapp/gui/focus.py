"""Keyboard focus goes back to the canvas after a number is entered in the side panel.

A spin box that keeps the focus takes M, C, B, E and Ctrl+Z for itself (Qt gives a focused
text field first claim on printable keys and on undo). :func:`return_focus` commits the typed
value and hands the keyboard back to the canvas when the value is entered (Enter, arrows,
wheel), and lets letters and undo/redo through to the window's shortcuts at once;
:func:`return_focus_in` does it for every spin box of a panel, including those a parameter
form creates later (each is set up the first time it takes the focus).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QAbstractSpinBox, QApplication


class _PassShortcuts(QObject):
    def __init__(self, spin, target):
        super().__init__(spin)
        self.spin, self.target = spin, target

    def eventFilter(self, obj, ev):
        if ev.type() == QEvent.ShortcutOverride and _for_the_window(ev):
            self.spin.interpretText()  # a typed number counts before the shortcut acts
            QTimer.singleShot(0, self.target.setFocus)
            return True  # not accepted: the shortcut map gets the key
        return False


def _for_the_window(ev) -> bool:
    if ev.matches(QKeySequence.Undo) or ev.matches(QKeySequence.Redo) or ev.matches(QKeySequence.Quit):
        return True
    text = ev.text()
    return len(text) == 1 and text.isalpha()  # a letter means nothing to a number box


class _Watcher(QObject):
    """Child of the panel: the connection ends with it."""

    def __init__(self, panel, target):
        super().__init__(panel)
        self.panel, self.target = panel, target

    def focused(self, _old, new):
        if isinstance(new, QAbstractSpinBox) and self.panel.isAncestorOf(new) and not new.property("returnsFocus"):
            return_focus(new, self.target)


def return_focus_in(panel, target) -> None:
    """:func:`return_focus` for every spin box inside ``panel``, now or later."""
    watcher = _Watcher(panel, target)
    QApplication.instance().focusChanged.connect(watcher.focused)


def return_focus(spin, target) -> None:
    """After ``spin`` takes a value, the keyboard is ``target``'s again."""
    spin.setProperty("returnsFocus", True)
    spin.setKeyboardTracking(False)  # "12" is one value, not 1 then 12
    spin.installEventFilter(_PassShortcuts(spin, target))

    def entered(*_):
        if spin.hasFocus():
            QTimer.singleShot(0, target.setFocus)

    spin.valueChanged.connect(entered)
    spin.editingFinished.connect(entered)
