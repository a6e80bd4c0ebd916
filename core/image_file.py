"""Decoding image files for :func:`core.image.load_image`: format signatures, PNG bit depth,
wide-colour TIFF through tifffile, EXIF orientation, Pillow images to arrays."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .errors import InvalidImageError


def _signature(head: bytes) -> str | None:
    """The format a file's first bytes announce, if any segapp reads."""
    for magic, kind in ((b"\x89PNG", "PNG"), (b"\xff\xd8\xff", "JPEG"), (b"II*\x00", "TIFF"),
                        (b"MM\x00*", "TIFF"), (b"BM", "BMP"), (b"GIF8", "GIF")):
        if head.startswith(magic):
            return kind
    return None


def _reason(e: Exception) -> str:
    text = " ".join(str(e).split())
    return text if text else type(e).__name__


def _png_bit_depth(f, im) -> int:
    if im.format != "PNG":
        return 8
    f.seek(24)
    b = f.read(1)
    return b[0] if b else 8


def _is_wide_colour_tiff(im) -> bool:
    if im.format != "TIFF" or im.mode not in ("RGB", "RGBA"):
        return False
    bits = im.tag_v2.get(258, (8,))
    bits = bits if isinstance(bits, tuple) else (bits,)
    return max(bits) > 8


def _read_tiff(p: Path) -> np.ndarray:
    """A colour TIFF with more than 8 bits per sample, in full (first page)."""
    import tifffile

    arr = np.asarray(tifffile.imread(p, key=0))
    if arr.ndim == 3 and arr.shape[0] in (3, 4) and arr.shape[2] not in (3, 4):
        arr = np.moveaxis(arr, 0, -1)  # planar configuration
    if arr.dtype.kind == "u" and arr.dtype.itemsize > 2:
        arr = arr.astype(np.float64)
    return arr


def _orient(a: np.ndarray, orientation: int) -> np.ndarray:
    """Apply the EXIF/TIFF orientation tag (values 1-8) to an (H, W[, c]) array."""
    t = lambda x: np.swapaxes(x, 0, 1)  # noqa: E731
    ops = {2: lambda x: x[:, ::-1], 3: lambda x: x[::-1, ::-1], 4: lambda x: x[::-1],
           5: t, 6: lambda x: t(x)[:, ::-1], 7: lambda x: t(x)[::-1, ::-1], 8: lambda x: t(x)[::-1]}
    op = ops.get(int(orientation))
    return np.ascontiguousarray(op(a)) if op else a


def _pil_to_array(im, p: Path, png_depth: int = 8) -> np.ndarray:
    mode = im.mode
    transparent = "transparency" in im.info
    if mode.startswith("I;16"):
        a = np.asarray(im)
        return a.astype(np.uint16) if mode != "I;16S" else _int_array(a)
    if mode == "I":
        return _int_array(np.asarray(im))
    if mode == "F":
        return np.asarray(im, dtype=np.float64)
    if mode in ("1", "L") and not transparent:
        return np.asarray(im.convert("L"))
    if mode in ("L", "LA", "La"):
        return np.asarray(im.convert("LA"))
    if mode in ("RGB", "RGBA") and not (mode == "RGB" and transparent):
        arr = np.asarray(im)  # already the mode asked for: no converted copy (convert() copies)
    elif mode in ("RGBa", "PA") or (mode in ("P", "RGB") and transparent):
        arr = np.asarray(im.convert("RGBA"))
    else:
        try:
            arr = np.asarray(im.convert("RGB"))
        except ValueError:
            raise InvalidImageError(f"{p.name} has colour mode {mode!r}, which segapp cannot convert to "
                                    "RGB; save it as 8- or 16-bit grey or RGB") from None
    if png_depth == 16 and int(arr[..., :3].max()) < 16:
        raise InvalidImageError(
            f"{p.name} is a 16-bit colour PNG whose values all lie below 4096 (12-bit data?); "
            "segapp reads colour PNG at 8 bits per channel, which would show it black: "
            "save it as a 16-bit TIFF (read in full) or scale it to the 16-bit range")
    return arr


def _int_array(a: np.ndarray) -> np.ndarray:
    if a.size and a.min() >= 0 and a.max() <= 65535:
        return a.astype(np.uint16)
    return a.astype(np.float64)
