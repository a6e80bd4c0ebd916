"""Atomic file writes: a temporary file in the target's folder, then a rename.

Every file segapp writes (constraint files, masks, overlays, autosaves, benchmark results,
summaries and charts) goes through here, so an interrupted write (a crash, SIGKILL, a full
disk) never leaves a half-written file in place of the previous one.

* The temporary file is ``.<name>.<pid>.<random>.segapp-tmp`` in the target's own folder (a
  rename across file systems would not be atomic). Temporary files of ours that a killed
  process left behind for the same target are removed on the next write: those whose process
  is gone, and any older than a day.
* A new file gets the permissions the user's umask gives (``0o666 & ~umask``, as ``open``
  does; ``tempfile.mkstemp`` would give 0600); a replaced file keeps its own permissions.
  Writing to a symbolic link replaces the file it points to, not the link.
* ``durable=True`` (the default) fsyncs the file before the rename and the folder after it,
  so the new content survives a power cut; frequent autosaves may skip it (the rename alone
  keeps the file whole if the app crashes).
* Every failure is an :class:`~core.errors.OutputError` naming the path and the cause.
"""

from __future__ import annotations

import errno
import os
import secrets
import time
from pathlib import Path

from .errors import OutputError

TMP_SUFFIX = ".segapp-tmp"
STALE_SECONDS = 24 * 3600


def open_to_read(path: Path, error: type[Exception], what: str):
    """Open ``path`` for reading bytes; every way that fails is an ``error`` naming ``what``.

    Parameters
    ----------
    path : Path
    error : type of Exception
        The caller's own error class (``InvalidImageError``, ``ConstraintError``, ...).
    what : str
        What the file should be, for the message ("image file", "constraint file").

    Returns
    -------
    file object opened ``"rb"``; the caller closes it.
    """
    try:
        if path.is_dir():
            raise error(f"{path} is a folder, not a{'n' if what[0] in 'aeiou' else ''} {what}")
        return open(path, "rb")
    except FileNotFoundError:
        raise error(f"{what} not found: {path}") from None
    except PermissionError:
        raise error(f"no permission to read {what} {path}") from None
    except OSError as e:
        raise error(f"cannot read {what} {path}: {e.strerror or e}") from None


def atomic_write_text(path: str | os.PathLike, text: str, durable: bool = True) -> None:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file and a rename."""
    atomic_write_bytes(path, text.encode("utf-8"), durable)


def atomic_write_bytes(path: str | os.PathLike, data: bytes, durable: bool = True) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename.

    Raises
    ------
    OutputError
        The folder is missing or not writable, ``path`` is a folder, or the disk is full;
        the previous file at ``path`` is unchanged.
    """
    path = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    check_writable(path)  # also refuses a name too long for the file system
    folder = path.parent
    sweep_stale(path)
    tmp = folder / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}{TMP_SUFFIX}"
    try:
        old_mode = path.stat().st_mode & 0o7777 if path.is_file() else None
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
        with os.fdopen(fd, "wb") as f:
            if old_mode is not None:
                os.fchmod(f.fileno(), old_mode)
            f.write(data)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.replace(tmp, path)
        if durable:
            _fsync_folder(folder)
    except OSError as e:
        _unlink(tmp)
        raise OutputError(describe_os_error(path, e)) from None
    except BaseException:
        _unlink(tmp)
        raise


def check_writable(path: str | os.PathLike) -> None:
    """Raise :class:`~core.errors.OutputError` unless a file can be written at ``path``.

    Checks what can be known before writing (the folder exists and is writable, ``path`` is
    not a folder), so that a long computation is not run for nothing; a full disk shows only
    when writing.
    """
    path = Path(path)
    try:
        _check_writable(path)
    except OSError as e:
        if isinstance(e, OutputError):
            raise
        raise OutputError(describe_os_error(path, e)) from None


def _check_writable(path: Path) -> None:
    folder = path.parent
    if path.is_dir():
        raise OutputError(f"cannot write {path}: it is a folder, not a file")
    if not folder.exists():
        raise OutputError(f"cannot write {path}: folder {folder} does not exist")
    if not folder.is_dir():
        raise OutputError(f"cannot write {path}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write {path}: no permission to create files in {folder}")
    if path.exists() and not path.is_file():
        raise OutputError(f"cannot write {path}: it exists and is not a regular file")


def describe_os_error(path: Path, e: OSError) -> str:
    """One line naming ``path`` and why writing it failed."""
    reason = {
        errno.ENOSPC: "no space left on the device",
        errno.EDQUOT: "disk quota exceeded",
        errno.EROFS: "the file system is read-only",
        errno.EACCES: "permission denied",
        errno.EPERM: "permission denied",
        errno.ENOENT: f"folder {path.parent} does not exist",
        errno.EISDIR: "it is a folder, not a file",
        errno.ENAMETOOLONG: "the file name is too long",
    }.get(e.errno, e.strerror or str(e))
    return f"cannot write {path}: {reason}; any previous file there is unchanged"


def sweep_stale(path: Path) -> int:
    """Remove temporary files of ours for ``path`` that a killed writer left behind.

    Returns the number removed. A temporary file is stale when the process that made it is
    gone or when it is older than :data:`STALE_SECONDS`; a live writer's file is kept.
    """
    removed = 0
    try:
        candidates = list(path.parent.glob(f".{_glob_escape(path.name)}.*{TMP_SUFFIX}"))
    except OSError:
        return 0
    now = time.time()
    for tmp in candidates:
        parts = tmp.name[len(path.name) + 2:-len(TMP_SUFFIX)].split(".")
        try:
            pid = int(parts[0])
            old = now - tmp.stat().st_mtime > STALE_SECONDS
        except (ValueError, IndexError, OSError):
            continue
        if old or not _alive(pid):
            removed += _unlink(tmp)
    return removed


def _glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _unlink(p: Path) -> int:
    try:
        os.unlink(p)
        return 1
    except OSError:
        return 0


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot fsync a folder; the file itself is synced
    finally:
        os.close(fd)
