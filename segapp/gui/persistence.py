"""Autosave and crash recovery of the session; recent files; QSettings keys in one place.

Autosave writes run in the controller's file thread; the GUI thread only takes a snapshot
(references to the model's items), so a session of 10^4 links never stalls the window.
"""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, QStandardPaths, QTimer

import core
from core._io import atomic_write_text

MAX_RECENT = 10
AUTOSAVE_DELAY_MS = 300


def settings() -> QSettings:
    return QSettings("segapp", "segapp")


def data_dir() -> Path:
    d = Path(QStandardPaths.writableLocation(QStandardPaths.AppDataLocation) or Path.home() / ".segapp")
    d.mkdir(parents=True, exist_ok=True)
    return d


def session_file() -> Path:
    return data_dir() / "session.json"


def session_data(model, clean: bool) -> dict | None:
    """What an autosave holds (taken on the GUI thread: cheap, references only)."""
    if model.path is None:
        return None
    return {"clean": clean, "image": str(model.path), "items": model.snapshot(), "method": model.method,
            "n_segments": model.n_segments, "method_params": {k: dict(v) for k, v in model.method_params.items()},
            "rep_params": dict(model.rep_params)}


def write_session(data: dict | None, path: Path | None = None) -> None:
    """Write a :func:`session_data` dict (in a thread); ``clean`` writes are fsynced."""
    if data is None:
        return
    items = data.pop("items")
    data["constraints"] = core.Constraints(items["must_link"], items["cannot_link"], items["blocks"]).to_dict()
    atomic_write_text(path or session_file(), json.dumps(data), durable=data["clean"])


class Autosave(QObject):
    """Writes the session 300 ms after the last edit, in the controller's file thread."""

    def __init__(self, model, background, parent=None):
        super().__init__(parent)
        self.model, self.background = model, background
        self.timer = QTimer(self, singleShot=True, interval=AUTOSAVE_DELAY_MS)
        self.timer.timeout.connect(self.save)
        model.constraintsChanged.connect(self.timer.start)
        model.settingsChanged.connect(self.timer.start)

    def save(self) -> None:
        data = session_data(self.model, clean=False)
        self.background.run(lambda: write_session(data), failed=lambda _msg: None)  # never disturbs the user

    def close(self) -> None:
        """Mark the session cleanly closed (written now, on the way out)."""
        self.timer.stop()
        try:
            write_session(session_data(self.model, clean=True))
        except (OSError, core.SegappError):
            pass


def crashed_session() -> dict | None:
    """The autosaved session if the last run did not end cleanly (and its image still exists)."""
    try:
        data = json.loads(session_file().read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("clean", True) or not Path(str(data.get("image", ""))).exists():
        return None
    return data


def restore(controller, data: dict) -> None:
    """Reopen a crashed session: its image, then (once decoded) settings and constraints, the
    constraints validated in the file thread."""
    model = controller.model

    def validated(shape):
        cons = core.Constraints.from_dict(data.get("constraints", {}))
        cons.validate(shape)
        return cons

    def apply():
        restore_settings(model, data)
        shape = model.shape
        controller.files.run(lambda: validated(shape), lambda c: model.set_constraints(c, "restore session"),
                             lambda msg: model.errorOccurred.emit(f"the saved constraints could not be restored: {msg}"))

    controller.open_image(data["image"], then=apply)


def restore_settings(model, data) -> None:
    """Method, segments and parameters from saved settings; a bad entry is dropped by name."""
    method = data.get("method")
    if method in core.METHODS:
        model.set_method(method)
    k = data.get("n_segments")
    if isinstance(k, int) and not isinstance(k, bool) and 2 <= k <= 16:
        model.set_segments(k)
    specs = {m: {p.name: p for p in core.METHODS[m].params} for m in core.METHODS}
    given = data.get("method_params")
    given = given if isinstance(given, dict) else {}
    method_params = {m: _valid(v, specs[m]) for m, v in given.items() if m in specs and isinstance(v, dict)}
    rep = data.get("rep_params")
    rep = _valid(rep, {p.name: p for p in core.REPRESENTATION_PARAMS}) if isinstance(rep, dict) else {}
    model.replace_params(method_params, rep)


def _valid(values: dict, specs: dict) -> dict:
    out = {}
    for name, value in values.items():
        try:
            out[name] = specs[name].coerce(value)
        except (KeyError, core.ParameterError):
            continue  # a stale or hand-edited entry: dropped, never fatal
    return out


def save_settings(model) -> None:
    st = settings()
    st.setValue("method", model.method)
    st.setValue("method_params", json.dumps(model.method_params))
    st.setValue("rep_params", json.dumps(model.rep_params))


def load_settings(model) -> None:
    st = settings()
    try:
        data = {"method": st.value("method"), "method_params": json.loads(st.value("method_params") or "{}"),
                "rep_params": json.loads(st.value("rep_params") or "{}")}
    except (TypeError, ValueError):
        return
    restore_settings(model, data)


def add_recent(path) -> list[str]:
    s = settings()
    items = [p for p in (s.value("recent", []) or []) if p != str(path)]
    items = [str(path)] + items[: MAX_RECENT - 1]
    s.setValue("recent", items)
    return items


def recent() -> list[str]:
    return [p for p in (settings().value("recent", []) or []) if Path(p).exists()]
