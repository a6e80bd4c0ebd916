"""Autosave and crash recovery of the session; recent files; QSettings keys in one place."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths

import core
from core.constraints import atomic_write_text

MAX_RECENT = 10


def settings() -> QSettings:
    return QSettings("segapp", "segapp")


def data_dir() -> Path:
    d = Path(QStandardPaths.writableLocation(QStandardPaths.AppDataLocation) or Path.home() / ".segapp")
    d.mkdir(parents=True, exist_ok=True)
    return d


def session_file() -> Path:
    return data_dir() / "session.json"


def save_session(model, clean: bool) -> None:
    """Write image path, constraints, method, parameters; ``clean`` marks an orderly exit."""
    if model.path is None:
        return
    data = {"clean": clean, "image": str(model.path), "constraints": model.constraints.to_dict(),
            "method": model.method, "n_segments": model.n_segments, "params": model.params}
    try:
        atomic_write_text(session_file(), json.dumps(data), durable=clean)
    except OSError:
        pass  # autosave must never disturb the user's work


def crashed_session() -> dict | None:
    """The autosaved session if the last run did not end cleanly (and its image still exists)."""
    try:
        data = json.loads(session_file().read_text())
    except (OSError, ValueError):
        return None
    if data.get("clean", True) or not Path(data.get("image", "")).exists():
        return None
    return data


def restore(model, data) -> bool:
    if not model.open_image(data["image"]):
        return False
    try:
        cons = core.Constraints.from_dict(data["constraints"])
        cons.validate(model.image.shape[:2])
    except core.SegappError:
        return True
    model.n_segments = int(data.get("n_segments", 2))
    model.method = data.get("method", model.method) if data.get("method") in core.METHODS else model.method
    model.params = dict(data.get("params", {}))
    model.set_constraints(cons, "restore session")
    return True


def add_recent(path) -> list[str]:
    s = settings()
    items = [p for p in (s.value("recent", []) or []) if p != str(path)]
    items = [str(path)] + items[: MAX_RECENT - 1]
    s.setValue("recent", items)
    return items


def recent() -> list[str]:
    return [p for p in (settings().value("recent", []) or []) if Path(p).exists()]
