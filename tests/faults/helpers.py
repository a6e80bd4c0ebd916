"""What every fault case asserts, and the bad inputs it is built from.

A case either calls the library and expects one of segapp's own errors
(:func:`expect_error`), or runs the command line and expects exit status 2 with exactly one
line on stderr and no traceback (:func:`expect_cli_error`); where files exist before the
case, :class:`Unchanged` checks afterwards that none was altered or removed and no temporary
file was left. The GUI cases reuse the same checks (an error shown, nothing lost).

Image and data generators build each bad file from scratch in a temporary folder.

To add cases: a module ``tests/faults/test_<area>.py`` with a dict ``name -> (input, message
pattern)`` parametrised over its keys, each case ending in :func:`expect_error`,
:func:`expect_cli_error` or :class:`Unchanged` (GUI cases: the error shown in the window
instead of raised, and :class:`Unchanged` around the files the session holds).
"""

from __future__ import annotations

import io
import os
import struct
import subprocess
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from segapp.core.errors import SegappError

TMP_SUFFIX = ".segapp-tmp"


# -- assertions ---------------------------------------------------------------------------
def one_line(text: str) -> str:
    """``text`` stripped; fails unless it is exactly one non-empty line without a traceback."""
    text = text.strip()
    assert text, "expected a message, got nothing"
    assert "Traceback" not in text, text
    assert len(text.splitlines()) == 1, f"expected one line, got:\n{text}"
    return text


def expect_error(cls, fn, *args, match: str | None = None, **kwargs) -> SegappError:
    """Call ``fn``; it must raise ``cls`` (a :class:`SegappError`) with a one-line message
    matching ``match`` (a regular expression, searched)."""
    assert issubclass(cls, SegappError)
    with pytest.raises(cls, match=match) as info:
        fn(*args, **kwargs)
    one_line(str(info.value))
    return info.value


@dataclass
class CliResult:
    code: int
    out: str
    err: str


def run_cli(argv, capsys) -> CliResult:
    """``segapp ARGV`` in this process (``segapp.cli.main``); output captured."""
    from segapp.cli import main

    capsys.readouterr()
    code = main([str(a) for a in argv])
    cap = capsys.readouterr()
    return CliResult(code, cap.out, cap.err)


def expect_cli_error(argv, capsys, match: str | None = None) -> str:
    """``segapp ARGV`` exits 2 with one line ``segapp: error: ...`` (matching ``match``) on
    stderr; returns that line."""
    import re

    r = run_cli(argv, capsys)
    line = one_line(r.err)
    assert r.code == 2, f"exit status {r.code}, stderr: {r.err}"
    assert line.startswith("segapp: error:"), line
    if match is not None:
        assert re.search(match, line), f"{match!r} not in {line!r}"
    return line


def run_subprocess(code: str, *args, timeout: float = 120, **kwargs) -> subprocess.CompletedProcess:
    """``python -c code args`` from the repository root (a fresh interpreter)."""
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root), **kwargs.pop("env", {})}
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=kwargs.pop("cwd", root), env=env, **kwargs)


class Unchanged:
    """Context manager: the files given exist with the same bytes afterwards, and their
    folders hold no temporary file of ours."""

    def __init__(self, *paths):
        self.paths = [Path(p) for p in paths]

    def __enter__(self):
        self.before = {p: p.read_bytes() for p in self.paths}
        return self

    def __exit__(self, *exc):
        for p, data in self.before.items():
            assert p.exists(), f"{p} was removed"
            assert p.read_bytes() == data, f"{p} was changed"
            left = [q.name for q in p.parent.iterdir() if q.name.endswith(TMP_SUFFIX)]
            assert not left, f"temporary files left in {p.parent}: {left}"
        return False


# -- image files ---------------------------------------------------------------------------
def encoded(array: np.ndarray, fmt: str, **save) -> bytes:
    """``array`` saved by Pillow in format ``fmt`` (PNG, JPEG, TIFF, BMP, GIF)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(array).save(buf, format=fmt, **save)
    return buf.getvalue()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_header_claiming(width: int, height: int) -> bytes:
    """A PNG of a few bytes whose header claims ``width x height`` grey pixels (a
    decompression bomb's header)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(b"\x00" * 64))
            + _chunk(b"IEND", b""))


def png16(array: np.ndarray) -> bytes:
    """A 16-bit PNG (grey, grey + alpha, RGB or RGBA by the last axis) written by hand:
    Pillow cannot write 16-bit colour PNGs."""
    a = array if array.ndim == 3 else array[..., None]
    h, w, c = a.shape
    raw = b"".join(b"\x00" + a[r].astype(">u2").tobytes() for r in range(h))
    ihdr = struct.pack(">IIBBBBB", w, h, 16, {1: 0, 2: 4, 3: 2, 4: 6}[c], 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(raw)) + _chunk(b"IEND", b"")


def noise(h: int = 24, w: int = 32, channels: int = 3, seed: int = 0) -> np.ndarray:
    shape = (h, w, channels) if channels > 1 else (h, w)
    return (np.random.RandomState(seed).rand(*shape) * 255).astype(np.uint8)


def halves(h: int = 30, w: int = 40) -> np.ndarray:
    """A colour image with a dark left and a light right half and mild noise: something to
    segment (uniform colour noise gives SLIC a single superpixel)."""
    img = np.zeros((h, w, 3), np.uint8)
    img[:, : w // 2], img[:, w // 2:] = (60, 40, 30), (200, 210, 230)
    return np.clip(img + np.random.RandomState(0).randint(-8, 8, img.shape), 0, 255).astype(np.uint8)


def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


# -- ground truth --------------------------------------------------------------------------
def write_mat(path: Path, **variables) -> Path:
    from scipy.io import savemat

    path.parent.mkdir(parents=True, exist_ok=True)
    savemat(path, variables)
    return path


def ground_truth(*segmentations) -> np.ndarray:
    """The BSDS ``groundTruth`` cell array of the given (H, W) label arrays (labels from 1)."""
    gt = np.empty((1, len(segmentations)), dtype=object)
    for j, seg in enumerate(segmentations):
        gt[0, j] = {"Segmentation": np.asarray(seg), "Boundaries": np.zeros(np.shape(seg), bool)}
    return gt
