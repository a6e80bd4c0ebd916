"""The lasting sign that autosave cannot write: a button in the status bar.

A status-bar message is replaced by the next one within a second; while autosave is down,
this button stays, says that strokes drawn now are lost if segapp crashes, and saves the
constraints to a file when clicked. It goes when writing works again.
"""

from __future__ import annotations

from PySide6.QtWidgets import QToolButton

from .colours import ERROR_TEXT


class AutosaveBadge(QToolButton):
    """Hidden while autosave works; :meth:`show_failure` shows it, :meth:`clear` hides it.

    ``clicked`` is what the window connects to Save constraints.
    """

    TEXT = "⚠ Not autosaved: Save constraints…"

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setText(self.TEXT)
        self.setAutoRaise(True)
        self.setStyleSheet(f"QToolButton {{ color: {ERROR_TEXT}; font-weight: bold; }}")
        self.setAccessibleName("autosave is off")
        self.hide()

    def show_failure(self, message: str) -> None:
        self.setToolTip(f"Autosave cannot write: {message}.\nStrokes drawn now are lost if segapp "
                        "crashes. Click to save the constraints to a file; this sign goes when "
                        "autosave can write again.")
        self.show()

    def clear(self) -> None:
        self.hide()
