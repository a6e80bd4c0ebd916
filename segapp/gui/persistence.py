"""Autosave and crash recovery of the session; recent files; QSettings keys in one place.

Autosave is a journal per image (:mod:`.journal`): every edit is appended as it happens, so a
crash or SIGKILL loses no stroke; a clean exit removes the journals. A failed autosave (a
read-only folder, a full disk) is said in the window through ``Autosave.failed``.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, QStandardPaths, Signal

from segapp.core.constraints import Kind
from segapp import core
from segapp.core import render

from .journal import COMPACT_EVERY, Journal, remove_session, session_key, unfinished_sessions

MAX_RECENT = 10


def settings() -> QSettings:
    return QSettings("segapp", "segapp")


def data_dir() -> Path:
    """The app's data folder, made if it can be; when it cannot (read-only, a file in its
    place) the path is returned anyway: writes there fail and the window says so
    (:class:`Autosave` ``failed``), the window still starts."""
    d = Path(QStandardPaths.writableLocation(QStandardPaths.AppDataLocation) or Path.home() / ".segapp")
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError:
        pass
    return d


def sessions_dir() -> Path:
    """Where the journals live: one folder per image edited."""
    return data_dir() / "sessions"


def settings_state(model) -> dict:
    """Method, segments and parameters (copies: safe to encode in a thread)."""
    return {"method": model.method, "n_segments": model.n_segments,
            "method_params": {k: dict(v) for k, v in model.method_params.items()},
            "rep_params": dict(model.rep_params)}


class Autosave(QObject):
    """Journals every edit of every image of the session (see :mod:`.journal`).

    Signals: ``failed(message)`` when a write fails (once per failure) or :meth:`check` finds
    the folder unwritable, ``recovered()`` when writing works again. ``down`` is True from a
    failure until the next successful write.
    """

    failed = Signal(str)
    recovered = Signal()

    def __init__(self, model, parent=None, root: Path | None = None):
        super().__init__(parent)
        self.model = model
        self.root = Path(root) if root is not None else sessions_dir()
        self.journals: dict[Path, Journal] = {}
        self._switching = False
        self.down = False
        model.imageChanged.connect(self._on_image)
        model.itemInserted.connect(lambda kind, i: self._edit("ins", kind, i, model.items(kind)[i],
                                                              model.seq_of(kind, i)))
        model.itemRemoved.connect(lambda kind, i: self._edit("rm", kind, i))
        model.constraintsReset.connect(self._on_reset)
        model.settingsChanged.connect(self._on_settings)
        model.constraintsSaved.connect(self._on_saved)

    def journal(self, path=None) -> Journal:
        path = Path(path if path is not None else self.model.path)
        j = self.journals.get(path)
        if j is None:
            j = self.journals[path] = Journal(self.root / session_key(path), path, self._failed, self._written)
        return j

    def check(self) -> bool:
        """Whether the sessions folder can be written (a probe file is made and removed);
        when it cannot, ``failed`` says why before the first stroke is lost."""
        probe = self.root / f".probe-{os.getpid()}"
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as e:
            self._failed(f"{e.strerror or e}: {e.filename or self.root}")
            return False
        return True

    def _failed(self, message: str) -> None:  # any thread
        self.down = True
        self.failed.emit(message)

    def _written(self) -> None:  # any thread
        if self.down:
            self.down = False
            self.recovered.emit()

    def _edit(self, op: str, *args) -> None:
        if self.model.path is None:
            return
        j = self.journal()
        if not j.started or j.failed or j.lines >= COMPACT_EVERY:
            j.base(self.model.snapshot(), settings_state(self.model), dirty=True)  # holds this edit too
        else:
            j.record(op, *args)

    def _on_image(self) -> None:
        self._switching = True  # the reset that follows shows the image's items: not an edit

    def _on_reset(self) -> None:
        if self._switching:
            self._switching = False
            return
        self._edit("reset", self.model.snapshot())

    def _on_settings(self) -> None:
        j = self.journals.get(self.model.path) if self.model.path is not None else None
        if j is not None and j.started and not j.failed:
            j.record("settings", settings_state(self.model))

    def _on_saved(self, image: str) -> None:
        j = self.journals.get(Path(image))
        if j is not None and j.started and not j.failed:
            j.record("saved")

    def flush(self) -> None:
        for j in self.journals.values():
            j.flush()

    def close(self, keep_unsaved: bool = False) -> None:
        """A clean exit removes the journals; ``keep_unsaved`` (closed by a signal) keeps those
        of images with unsaved constraints, marked ``stopped``, to be offered next time."""
        unsaved = set(self.model.unsaved()) if keep_unsaved else set()
        for path, j in self.journals.items():
            if path in unsaved and j.started:
                j.record("stopped")
                j.close()
            else:
                j.remove()
        self.journals.clear()


def unfinished() -> list[dict]:
    """Sessions a crash (or a signal) left with unsaved strokes, newest first."""
    return unfinished_sessions(sessions_dir())


def discard(session: dict) -> None:
    remove_session(session["folder"])


def restore(controller, data: dict, image=None, then=None, tell=None) -> None:
    """Reopen an unfinished session: its image (or ``image``, where the user found it moved),
    then settings and constraints. Items outside a now smaller image are not restored: the
    window says how many and where they were kept; nothing is dropped silently. Notes go to
    the status bar and to ``tell(text)`` (a dialog that stays until read)."""
    model = controller.model

    def note(text):
        model.errorOccurred.emit(text)
        if tell is not None:
            tell(text)
    path = Path(image or data["image"])
    old_folder = Path(data["folder"])

    def fitted(shape):
        given = {k: v for k, v in data["items"].items() if k in (Kind.MUST_LINK, Kind.CANNOT_LINK, Kind.BLOCK)}
        if data.get("order") is not None:
            given["order"] = {k: v for k, v in data["order"].items() if k in given}
        kept, outside = fit(core.Constraints.from_dict(given), shape)
        kept.validate(shape)
        note = None
        if outside:
            out = data_dir() / "not-restored" / f"{path.stem}-{time.strftime('%Y%m%d-%H%M%S')}.json"
            out.parent.mkdir(parents=True, exist_ok=True)
            outside.to_json(out)
            h, w = shape
            note = (f"{len(outside)} of the session's links/blocks lie outside the {w}×{h} image and were not "
                    f"restored; they are kept in {out}")
        return kept, note

    def restored(value):
        kept, outside_note = value
        if kept:
            model.set_constraints(kept, "restore session")
        if outside_note:
            note(outside_note)
        if session_key(path) != old_folder.name:
            remove_session(old_folder)  # the image moved: its journal lives on under the new path
        if then is not None:
            then()

    def apply():
        notes = restore_settings(model, data.get("settings", {}))
        if notes:
            note("\n".join(notes))
        shape = model.shape
        def failed(msg):
            note(f"the saved constraints could not be restored (kept in {old_folder}): {msg}")
            if then is not None:
                then()

        controller.files.run(lambda: fitted(shape), restored, failed)

    controller.open_image(path, then=apply)


def fit(cons: core.Constraints, shape) -> tuple[core.Constraints, core.Constraints]:
    """Split ``cons`` into the items inside an image of ``shape`` and those outside it (each
    keeping its creation order)."""
    h, w = shape

    def inside(kind, item):
        if kind == Kind.BLOCK:
            return item.bottom <= h and item.right <= w
        return item[0] < h and item[2] < h and item[1] < w and item[3] < w

    def part(keep):
        chosen = {k: [i for i, x in enumerate(getattr(cons, k)) if inside(k, x) == keep]
                  for k in (Kind.MUST_LINK, Kind.CANNOT_LINK, Kind.BLOCK)}
        return core.Constraints(*([getattr(cons, k)[i] for i in chosen[k]] for k in chosen),
                                order={k: [cons.order[k][i] for i in chosen[k]] for k in chosen})

    return part(True), part(False)


def restore_settings(model, data, where: str = "the saved session") -> list[str]:
    """Method, segments and parameters from saved settings. A bad entry is dropped by name
    (the default stays) and described in the returned notes; never fatal, never kept."""
    notes = []
    data = data if isinstance(data, dict) else {}
    method = data.get("method")
    if method in core.METHODS:
        model.set_method(method)
    elif method is not None:
        notes.append(f"{where}: unknown method {_short(method)} ignored; valid methods: {', '.join(core.METHODS)}")
    k = data.get("n_segments")
    if isinstance(k, int) and not isinstance(k, bool) and 2 <= k <= render.MAX_SEGMENTS:
        model.set_segments(k)
    elif k is not None:
        notes.append(f"{where}: n_segments {_short(k)} is not a whole number from 2 to {render.MAX_SEGMENTS}; "
                     f"kept {model.n_segments}")
    specs = {m: {p.name: p for p in core.METHODS[m].params} for m in core.METHODS}
    method_params = {}
    for m, values in _dict(data.get("method_params"), "method_params", where, notes).items():
        if m not in specs:
            notes.append(f"{where}: parameters of unknown method {_short(m)} ignored")
        elif isinstance(values, dict):
            method_params[m] = _valid(values, specs[m], f"{where}: {m}", notes)
    rep = _valid(_dict(data.get("rep_params"), "rep_params", where, notes),
                 {p.name: p for p in core.REPRESENTATION_PARAMS}, f"{where}: representation", notes)
    model.replace_params(method_params, rep)
    return notes


def _dict(value, name, where, notes) -> dict:
    if value is None or isinstance(value, dict):
        return value or {}
    notes.append(f"{where}: {name} is not a table of parameters; defaults used")
    return {}


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _valid(values: dict, specs: dict, where: str, notes: list) -> dict:
    out = {}
    for name, value in values.items():
        if name not in specs:
            notes.append(f"{where} parameter {_short(name)} is unknown; ignored")
            continue
        try:
            out[name] = specs[name].coerce(value)
        except core.ParameterError as e:  # a stale or hand-edited entry: dropped, never fatal
            notes.append(f"{where} {name} = {_short(value)} dropped ({e}); the default is used")
    return out


def save_settings(model) -> None:
    st = settings()
    st.setValue("method", model.method)
    st.setValue("n_segments", int(model.n_segments))
    st.setValue("method_params", json.dumps(model.method_params))
    st.setValue("rep_params", json.dumps(model.rep_params))


def load_settings(model) -> list[str]:
    """Restore the last method and parameters; returns notes on what was dropped."""
    st = settings()
    data, notes = {"method": st.value("method")}, []
    k = st.value("n_segments")
    if k is not None:  # INI settings come back as text
        data["n_segments"] = int(k) if isinstance(k, str) and k.strip().isdigit() else k
    for key in ("method_params", "rep_params"):
        text = st.value(key)
        try:
            data[key] = json.loads(text) if text else {}
        except (TypeError, ValueError, RecursionError):
            notes.append(f"settings: {key} is not readable JSON; defaults used")
    return notes + restore_settings(model, data, "settings")


def _paths(value) -> list[str]:
    """QSettings gives one string for a list of one (INI format): never split it into letters."""
    if isinstance(value, str):
        return [value]
    return [p for p in (value or []) if isinstance(p, str)]


def add_recent(path) -> list[str]:
    s = settings()
    path = str(Path(path).absolute())
    items = [p for p in _paths(s.value("recent", [])) if p != path]
    items = [path] + items[: MAX_RECENT - 1]
    s.setValue("recent", items)
    return items


def recent() -> list[str]:
    return [p for p in _paths(settings().value("recent", [])) if Path(p).exists()]
