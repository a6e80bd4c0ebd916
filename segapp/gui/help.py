"""The Help menu: keyboard shortcuts and the About box (version, methods, papers)."""

from __future__ import annotations

from html import escape

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QMessageBox, QTextBrowser, QVBoxLayout

from segapp import core
import segapp

SHORTCUTS = (
    ("Tools", (("M", "must-link: drag between two pixels of one segment"),
               ("C", "cannot-link: drag between two pixels of different segments"),
               ("B", "block: drag a rectangle that is segment of the current label"),
               ("P", "brush: paint a region that is segment of the current label"),
               ("E", "erase: click a link, block or brush region"),
               ("1 – 9", "current label of blocks and brush regions"),
               ("[  ]", "brush smaller / larger (also Ctrl + wheel); a dashed circle shows its size"))),
    ("View", (("F or Ctrl+0", "zoom to fit the image"), ("Ctrl+1", "actual size: one image pixel per screen pixel"),
              ("wheel", "zoom;  middle drag or Space + drag: pan"),
              ("Ctrl+K", "compare methods: every method's result on the same strokes; click one to use it"),
              ("G", "show / hide the suggested next stroke (dashed ring); click the ring to say where it belongs"))),
    ("Edit and files", (("Ctrl+Z", "undo (one step per link, block or brush stroke)"),
                        ("Ctrl+Shift+Z, Ctrl+Y", "redo"),
                        ("Ctrl+Shift+Delete", "clear all constraints of the image (undoable)"),
                        ("PgDown / PgUp", "next / previous image of the set"),
                        ("Ctrl+D", "mark the image done (✓ in the browser; … = in progress)"),
                        ("Ctrl+O", "open an image"), ("Ctrl+S", "save constraints"),
                        ("Ctrl+E", "export the label mask"))),
)


def shortcuts_html() -> str:
    rows = []
    for title, keys in SHORTCUTS:
        rows.append(f"<tr><td colspan=2><h3>{escape(title)}</h3></td></tr>")
        rows += [f"<tr><td><b>{escape(k)}</b>&nbsp;&nbsp;</td><td>{escape(v)}</td></tr>" for k, v in keys]
    return "<table cellpadding=2>" + "".join(rows) + "</table>"


def about_html() -> str:
    methods = "".join(f"<li><b>{escape(name)}</b>: {escape(spec.description)} <i>({escape(spec.reference)})</i></li>"
                      for name, spec in core.METHODS.items())
    return (f"<h2>segapp {escape(segapp.__version__)}</h2>"
            "<p>Interactive image segmentation with pairwise constraints: must-links, cannot-links, "
            "labelled blocks and brush regions, honoured by constrained spectral clustering.</p>"
            f"<p>Methods:</p><ul>{methods}</ul>")


def show_shortcuts(parent) -> QDialog:
    dlg = QDialog(parent)
    dlg.setWindowTitle("Keyboard shortcuts")
    lay = QVBoxLayout(dlg)
    text = QTextBrowser()
    text.setHtml(shortcuts_html())
    lay.addWidget(text)
    buttons = QDialogButtonBox(QDialogButtonBox.Close)
    buttons.rejected.connect(dlg.reject)
    lay.addWidget(buttons)
    dlg.resize(520, 460)
    dlg.show()
    return dlg


def show_about(parent) -> QMessageBox:
    box = QMessageBox(parent)
    box.setWindowTitle("About segapp")
    box.setText(about_html())
    box.show()
    return box


def add_help_menu(window) -> None:
    """Help → Keyboard shortcuts (F1), About segapp."""
    menu = window.menuBar().addMenu("&Help")
    menu.addAction(QAction("Keyboard shortcuts", window, shortcut=QKeySequence.HelpContents,
                           triggered=lambda: show_shortcuts(window)))
    menu.addAction(QAction("About segapp", window, triggered=lambda: show_about(window)))
