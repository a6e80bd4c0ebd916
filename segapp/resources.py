"""The files segapp needs at run time, installed with the package (``segapp/assets/``).

They are package data, so they are found the same way from a checkout, an editable install,
a wheel and the frozen app. The scripts that make them live in the project's ``assets/``
folder (``make_demo.py``, ``make_icon.py``). This module does not import Qt, so the
command line can use it without loading the GUI; :func:`window_icon` imports Qt when called.
"""

from __future__ import annotations

from pathlib import Path

ASSETS = Path(__file__).resolve().parent / "assets"
DEMO_IMAGE = ASSETS / "demo.png"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256)
ICON_FILES = {s: ASSETS / f"icon-{s}.png" for s in ICON_SIZES}
ICON = ICON_FILES[max(ICON_SIZES)]


def window_icon():
    """The application icon as a ``QIcon`` holding every drawn size (Qt picks the nearest).

    Returns
    -------
    PySide6.QtGui.QIcon
    """
    from PySide6.QtGui import QIcon

    icon = QIcon()
    for path in ICON_FILES.values():
        icon.addFile(str(path))
    return icon
