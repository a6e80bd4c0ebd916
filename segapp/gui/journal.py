"""Crash-safe autosave: an append-only journal of edits per image, compacted into a new base.

Each image edited in a session has a folder ``<sessions>/<key>/`` holding
``journal-<gen>.jsonl``: one JSON object per line. The first line of a generation is a
``base`` (image path, owner process, settings, every item); the lines after it are edits
(``ins``, ``rm``, ``reset``, ``settings``) and markers (``saved``: the constraints were written
to a file; ``stopped``: the app was closed by a signal; ``closed``: a clean exit). Replaying
the newest generation whose base is whole gives the session; a half-written last line (the
process was killed while writing it) is ignored.

An edit is written with one ``os.write`` on an ``O_APPEND`` descriptor from the GUI thread
(microseconds), before the next event is handled, so a SIGKILL right after a burst of strokes
loses none of them. Large lines (a base, or the reset of a loaded file of 10^4 links) are
encoded and written in a writer thread; edits that follow them wait in the same queue, so
the order on disk is the order of the edits. After ``COMPACT_EVERY`` lines a new generation
starts with a base and the older files are removed.

A failed write (read-only folder, full disk) is reported through ``on_error`` and the
generation is renamed ``*.stale``, so an incomplete session is never restored as if current;
the next edit tries a fresh base. No Qt here.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

FORMAT = 1
COMPACT_EVERY = 1000  # lines in a generation before a new base
LARGE = 200  # items in a reset above which it is encoded in the writer thread
EDITS = ("ins", "rm", "reset")


def session_key(image) -> str:
    """The folder name of an image's session (a hash of its absolute path)."""
    return hashlib.sha1(str(Path(image).absolute()).encode("utf-8", "surrogateescape")).hexdigest()[:16]


def encode_item(item):
    """A link tuple as a list, a block (rectangle or brush region) as in a constraint file."""
    if isinstance(item, tuple):
        return list(item)
    return item.to_dict()


def encode_items(snapshot: dict) -> dict:
    """A model snapshot: items of each kind, and ``order`` (creation sequence numbers)."""
    return {k: ({kind: list(seq) for kind, seq in v.items()} if k == "order" else [encode_item(x) for x in v])
            for k, v in snapshot.items()}


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (Linux), to tell a reused pid."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def owner() -> dict:
    return {"pid": os.getpid(), "start": _start_time(os.getpid())}


def owner_alive(who: dict) -> bool:
    """Another process that is still running owns the session (not us: a session of this
    process read back is as good as crashed)."""
    pid = who.get("pid") if isinstance(who, dict) else None
    if not isinstance(pid, int) or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        pass  # someone else's process: it exists
    start = _start_time(pid)
    return start is None or start == who.get("start")


class Journal:
    """The journal of one image's session; every method is called on the GUI thread.

    Parameters
    ----------
    folder : Path
        The session's folder (created on the first write).
    image : str
        The image's path, stored in every base.
    on_error, on_ok : callable(str) / callable()
        Called from the writer thread (pass a Qt signal's ``emit``) when a write fails, and
        each time a base (a whole new generation) was written.
    """

    def __init__(self, folder, image, on_error=None, on_ok=None):
        self.folder, self.image = Path(folder), str(image)
        self.on_error, self.on_ok = on_error, on_ok
        self.gen = max((g for g, _ in generations(self.folder)), default=0)
        self.lines = 0
        self.failed: str | None = None
        self.started = False
        self._fd: int | None = None
        self._lock = threading.Lock()
        self._queue: deque = deque()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="segapp-journal")

    # -- GUI thread -------------------------------------------------------------------
    def base(self, items: dict, settings: dict, dirty: bool) -> None:
        """Start a new generation holding the whole session (references only, encoded later)."""
        self.started = True
        self.lines = 1
        self._enqueue(("base", items, settings, dirty), large=sum(len(v) for v in items.values()) > LARGE)

    def record(self, op: str, *args) -> None:
        """One edit or marker: ``ins kind index item seq``, ``rm kind index``, ``reset snapshot``,
        ``settings dict``, ``saved``, ``stopped``, ``closed``."""
        self.lines += 1
        large = op == "reset" and sum(len(v) for v in args[0].values()) > LARGE
        self._enqueue((op, *args), large)

    def flush(self, timeout: float | None = None) -> None:
        """Wait until every queued line is written (or has failed)."""
        self._pool.submit(lambda: None).result(timeout)

    def close(self) -> None:
        self.flush()
        self._pool.shutdown(wait=True)
        with self._lock:
            self._close_fd()

    def remove(self) -> None:
        """Delete the session's files (after a clean exit, or when the user discarded them)."""
        self.close()
        remove_session(self.folder)

    # -- writing ----------------------------------------------------------------------
    def _enqueue(self, op: tuple, large: bool) -> None:
        with self._lock:
            if not self._queue and not large:
                self._write(op, encode_line(op, self))
                return
            self._queue.append(op)
        self._pool.submit(self._drain)

    def _drain(self) -> None:
        while True:
            with self._lock:
                if not self._queue:
                    return
                op = self._queue[0]
            text = encode_line(op, self)  # the slow part, outside the lock
            with self._lock:
                self._write(op, text)
                self._queue.popleft()

    def _write(self, op: tuple, text: str) -> None:
        """Append ``text`` (under the lock); a base opens a new generation first."""
        data = (text + "\n").encode("utf-8")
        try:
            if op[0] == "base":
                self._new_generation(data)
                self.failed = None
                if self.on_ok:
                    self.on_ok()
                return
            if self.failed is not None or self._fd is None:
                return  # nothing sound to append to: the next base starts again
            _write_all(self._fd, data)
        except OSError as e:
            self._fail(e)

    def _new_generation(self, data: bytes) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        gen = self.gen + 1
        path = self.folder / f"journal-{gen}.jsonl"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND | getattr(os, "O_CLOEXEC", 0), 0o600)
        try:
            _write_all(fd, data)
        except OSError:
            os.close(fd)
            _rename_stale(path)
            raise
        self._close_fd()
        self._fd, self.gen = fd, gen
        for g, old in generations(self.folder):
            if g < gen:
                _unlink(old)

    def _fail(self, e: OSError) -> None:
        self._close_fd()
        for _g, path in generations(self.folder):
            _rename_stale(path)  # never restored as if it were the current session
        first = self.failed is None
        self.failed = f"{e.strerror or e}" + (f" ({self.folder})" if not e.filename else f": {e.filename}")
        if first and self.on_error:
            self.on_error(self.failed)

    def _close_fd(self) -> None:
        if self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:
                pass
            self._fd = None


def encode_line(op: tuple, journal: Journal) -> str:
    kind = op[0]
    if kind == "base":
        _, items, settings, dirty = op
        return json.dumps({"op": "base", "v": FORMAT, "image": journal.image, "owner": owner(),
                           "time": time.time(), "dirty": dirty, "settings": settings, "items": encode_items(items)})
    if kind == "ins":
        return json.dumps({"op": "ins", "k": op[1], "i": op[2], "item": encode_item(op[3]), "seq": op[4]})
    if kind == "rm":
        return json.dumps({"op": "rm", "k": op[1], "i": op[2]})
    if kind == "reset":
        return json.dumps({"op": "reset", "items": encode_items(op[1])})
    if kind == "settings":
        return json.dumps({"op": "settings", "settings": op[1]})
    return json.dumps({"op": kind, "time": time.time()})


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _rename_stale(path: Path) -> None:
    try:
        os.replace(path, path.with_suffix(".stale"))
    except OSError:
        _unlink(path)


def _unlink(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def generations(folder: Path) -> list[tuple[int, Path]]:
    """The journal files in ``folder``, newest generation first."""
    out = []
    try:
        for p in Path(folder).glob("journal-*.jsonl"):
            try:
                out.append((int(p.stem.split("-", 1)[1]), p))
            except ValueError:
                continue
    except OSError:
        return []
    return sorted(out, reverse=True)


def remove_session(folder: Path) -> None:
    for p in list(Path(folder).glob("*")) if Path(folder).is_dir() else []:
        _unlink(p)
    try:
        Path(folder).rmdir()
    except OSError:
        pass


# -- reading ----------------------------------------------------------------------------
def read_session(folder) -> dict | None:
    """Replay the newest generation of ``folder`` whose base is whole.

    Returns ``{"folder", "image", "owner", "time", "items", "order", "settings", "dirty",
    "end", "damaged"}`` with items in the constraint file's form, ``order`` their creation
    sequence numbers per kind (None if not known), ``end`` the last marker ("closed",
    "stopped" or None), or None when there is no readable journal.
    """
    for _gen, path in generations(Path(folder)):
        try:
            lines = path.read_bytes().split(b"\n")
        except OSError:
            continue
        state = _replay(lines)
        if state is not None:
            state["folder"] = Path(folder)
            state["time"] = max(state["time"], _mtime(path))
            return state
    return None


def _mtime(path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _replay(lines: list[bytes]) -> dict | None:
    try:
        base = json.loads(lines[0])
    except (ValueError, RecursionError, IndexError):
        return None
    if not (isinstance(base, dict) and base.get("op") == "base" and base.get("v") == FORMAT
            and isinstance(base.get("items"), dict) and isinstance(base.get("image"), str)):
        return None
    items, order = _split(base["items"])
    state = {"order": order, "image": base["image"], "owner": base.get("owner"), "time": base.get("time") or 0.0,
             "settings": base.get("settings") if isinstance(base.get("settings"), dict) else {},
             "dirty": bool(base.get("dirty")), "end": None, "damaged": False}
    for raw in lines[1:]:
        if not raw.strip():
            continue
        try:
            op = json.loads(raw)
            _apply(op, items, state)
        except (ValueError, RecursionError, KeyError, IndexError, TypeError):
            state["damaged"] = True  # a half-written last line, or a hand-edited one: stop here
            break
    state["items"] = items
    order = state["order"]
    if order is not None and any(len(order.get(k, ())) != len(v) for k, v in items.items()):
        state["order"] = None  # inconsistent (hand-edited): items count in the order of their kinds
    return state


def _split(snapshot: dict) -> tuple[dict, dict | None]:
    items = {k: list(v) for k, v in snapshot.items() if k != "order" and isinstance(v, list)}
    order = snapshot.get("order")
    if not (isinstance(order, dict) and all(isinstance(v, list) for v in order.values())):
        return items, None
    return items, {k: list(v) for k, v in order.items()}


def _apply(op: dict, items: dict, state: dict) -> None:
    kind = op["op"]
    order = state["order"]
    if kind == "ins":
        lst = items.setdefault(op["k"], [])
        if not 0 <= op["i"] <= len(lst):
            raise IndexError(op["i"])
        lst.insert(op["i"], op["item"])
        if order is not None:
            if "seq" in op:
                order.setdefault(op["k"], []).insert(op["i"], op["seq"])
            else:
                state["order"] = None
    elif kind == "rm":
        del items[op["k"]][op["i"]]
        if order is not None:
            del order[op["k"]][op["i"]]
    elif kind == "reset":
        new_items, state["order"] = _split(op["items"])
        items.clear()
        items.update(new_items)
    elif kind == "settings":
        state["settings"] = dict(op["settings"])
        return
    elif kind == "saved":
        state["dirty"] = False
        state["end"] = None
        return
    elif kind in ("stopped", "closed"):
        state["end"] = kind
        return
    else:
        raise KeyError(kind)
    state["dirty"] = True
    state["end"] = None


def unfinished_sessions(root) -> list[dict]:
    """Sessions under ``root`` worth offering: not closed cleanly, owned by no running
    process, with unsaved items. Newest first."""
    out = []
    try:
        folders = [p for p in Path(root).iterdir() if p.is_dir()]
    except OSError:
        return []
    for folder in folders:
        s = read_session(folder)
        if s is None or s["end"] == "closed" or not s["dirty"] or owner_alive(s["owner"]):
            continue
        if not any(s["items"].values()):
            continue
        out.append(s)
    return sorted(out, key=lambda s: s["time"], reverse=True)
