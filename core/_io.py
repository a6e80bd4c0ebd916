"""Atomic file writes: a temporary file in the target's folder, then a rename.

Every file segapp writes (constraint files, masks, overlays, autosaves, benchmark results)
goes through here, so an interrupted write never leaves a half-written file in place of
the previous one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write_text(path: str | os.PathLike, text: str, durable: bool = True) -> None:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file and a rename."""
    atomic_write_bytes(path, text.encode("utf-8"), durable)


def atomic_write_bytes(path: str | os.PathLike, data: bytes, durable: bool = True) -> None:
    """Write through a temporary file and a rename; ``durable`` also fsyncs (skip it for
    frequent autosaves: the rename alone keeps the file whole if the app crashes)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent or "."))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
