"""Never lose work: the questions the window asks about it.

At start, an unfinished session (a crash or a signal left unsaved strokes) is offered
whichever way the app was launched; a session whose image moved asks for it and is never
overwritten. On quit, images with unsaved constraints are named and the user chooses to save,
discard or stay. The dialogs are small functions, so tests can answer them.
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QFileDialog, QMessageBox

from segapp.core.constraints import Kind
from segapp import core

from . import files, persistence

IMAGE_FILTER = "Images (*.png *.jpg *.jpeg *.tif *.tiff *.bmp)"


def _count(items: dict) -> str:
    links = len(items.get(Kind.MUST_LINK, ())) + len(items.get(Kind.CANNOT_LINK, ()))
    blocks = len(items.get(Kind.BLOCK, ()))
    return f"{links} link{'s' * (links != 1)}" + (f" and {blocks} block{'s' * (blocks != 1)}" if blocks else "")


def describe(session: dict) -> str:
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(session["time"])) if session["time"] else "?"
    how = "stopped by a signal" if session["end"] == "stopped" else "did not close cleanly"
    return f"{Path(session['image']).name}: {_count(session['items'])} (last edit {when}; segapp {how})"


# -- the dialogs (replaced in tests) --------------------------------------------------------
def ask_restore(parent, sessions: list[dict]) -> bool:
    lines = "\n".join(describe(s) for s in sessions)
    return QMessageBox.question(parent, "Restore unsaved work?",
                                f"segapp has unsaved strokes from last time:\n\n{lines}\n\nRestore them? "
                                "(No discards them.)") == QMessageBox.Yes


def ask_moved(parent, session: dict) -> str:
    """``"locate"``, ``"later"`` (keep the session for next time) or ``"discard"``."""
    box = QMessageBox(QMessageBox.Warning, "Image not found",
                      f"The image of your unsaved session is gone (moved or deleted):\n{session['image']}\n\n"
                      f"{_count(session['items'])} are waiting for it.", parent=parent)
    locate = box.addButton("Locate image…", QMessageBox.AcceptRole)
    later = box.addButton("Keep for later", QMessageBox.RejectRole)
    box.addButton("Discard", QMessageBox.DestructiveRole)
    box.exec()
    return "locate" if box.clickedButton() is locate else "later" if box.clickedButton() is later else "discard"


def locate_image(parent, session: dict) -> str | None:
    p, _ = QFileDialog.getOpenFileName(parent, f"Where is {Path(session['image']).name}?",
                                       str(Path(session["image"]).parent), IMAGE_FILTER)
    return p or None


def unsaved_text(paths: list[Path]) -> str:
    """The question :func:`ask_unsaved` asks, for one image or several."""
    names = "\n".join(p.name for p in paths)
    if len(paths) == 1:
        return f"{names} has constraints that are not saved to a file.\n\nSave them before quitting?"
    return f"These images have constraints that are not saved to a file:\n\n{names}\n\nSave them before quitting?"


def ask_unsaved(parent, paths: list[Path]) -> str:
    """``"save"``, ``"discard"`` or ``"cancel"``."""
    answer = QMessageBox.question(parent, "Unsaved constraints", unsaved_text(paths),
                                  QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, QMessageBox.Save)
    return {QMessageBox.Save: "save", QMessageBox.Discard: "discard"}.get(answer, "cancel")


def save_path(parent, image: Path) -> str | None:
    folder = persistence.settings().value("last_folder", "") or str(image.parent)
    p, _ = QFileDialog.getSaveFileName(parent, f"Save the constraints of {image.name}",
                                       str(Path(folder) / f"{image.stem}_constraints.json"), "JSON (*.json)")
    return p or None


def show_error(parent, message: str) -> None:
    QMessageBox.warning(parent, "Not saved", message)


def notify(parent, text: str) -> None:
    """A note the user must read (restored work, dropped settings): a dialog that does not
    block the window and stays until closed, unlike the status bar's next line."""
    box = QMessageBox(QMessageBox.Warning, "segapp", text, QMessageBox.Ok, parent)
    box.setAttribute(Qt.WA_DeleteOnClose)
    QTimer.singleShot(0, box.open)  # after the window itself is shown


# -- start and quit -------------------------------------------------------------------------
def startup(win, image=None, then=None, default=None) -> None:
    """Offer unfinished sessions, then show ``image`` (if given) last; ``then()`` after it.
    With no image and nothing restored, ``default`` is shown.

    Sessions whose image is missing are asked about one by one; the rest are offered together.
    Restored images keep their constraints for the session (switch with File → Open recent).
    """
    found, moved = [], []
    for s in persistence.unfinished():
        (found if Path(s["image"]).is_file() else moved).append(s)
    for s in moved:
        answer = ask_moved(win, s)
        path = locate_image(win, s) if answer == "locate" else None
        if path:
            s["located"] = path
            found.append(s)
        elif answer == "discard":
            persistence.discard(s)
    if found and not ask_restore(win, found):
        for s in found:
            persistence.discard(s)
        found = []
    steps = [(s, s.get("located")) for s in reversed(found)]  # the newest ends up shown
    if image is not None:
        steps = [st for st in steps if Path(st[1] or st[0]["image"]).absolute() != Path(image).absolute()]
        steps += [(s, None) for s in found if Path(s["image"]).absolute() == Path(image).absolute()]
    if image is None and not steps:
        image = default
    _chain(win, steps, image, then)


def _chain(win, steps, image, then) -> None:
    controller = win.controller
    if steps:
        (s, located), rest = steps[0], steps[1:]
        persistence.restore(controller, s, located, then=lambda: _chain(win, rest, image, then),
                            tell=lambda text: notify(win, text))
    elif image is not None and Path(image).absolute() != (controller.model.path and controller.model.path.absolute()):
        controller.open_image(image, then)
    elif then is not None:
        then()


def confirm_quit(win) -> bool:
    """True when nothing unsaved would be lost (saved now, or the user discarded it)."""
    unsaved = win.model.unsaved()
    if not unsaved:
        return True
    answer = ask_unsaved(win, unsaved)
    if answer == "cancel":
        return False
    if answer == "discard":
        return True
    for image in unsaved:
        path = save_path(win, image)
        if path is None:
            return False
        try:  # on the way out the user waits for it: written here, so a failure stops the quit
            files.write_constraints(path, win.model.items_of(image))
        except core.SegappError as e:
            show_error(win, f"The constraints of {image.name} were not saved: {e}")
            return False
    return True
