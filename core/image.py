"""Reading image files and normalising arrays to what the methods work on.

``load_image`` honours the EXIF orientation tag and accepts grey, RGB, RGBA, palette and
16-bit files (PNG, JPEG, TIFF, BMP). ``as_float_image`` turns any accepted array into a
float64 image in [0, 1] of shape (H, W) or (H, W, 3).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .errors import InvalidImageError

SUPPORTED_SUFFIXES = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp")


def load_image(path: str | os.PathLike) -> np.ndarray:
    """Read an image file into an array, EXIF orientation applied.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    image : ndarray, shape (H, W) or (H, W, 3)
        uint8 for 8-bit files, uint16 for 16-bit grey files, RGB for colour, palette and RGBA
        files (alpha is dropped).

    Raises
    ------
    InvalidImageError
        The file is missing, unreadable, corrupt or not an image.
    """
    from PIL import Image, ImageOps, UnidentifiedImageError

    p = Path(path)
    if not p.exists():
        raise InvalidImageError(f"image file not found: {p}")
    if p.is_dir():
        raise InvalidImageError(f"{p} is a folder, not an image file")
    try:
        with Image.open(p) as im:
            im.load()
            im = ImageOps.exif_transpose(im)
            arr = _pil_to_array(im)
    except UnidentifiedImageError:
        raise InvalidImageError(f"{p.name} is not an image file segapp can read "
                                f"(supported: {', '.join(SUPPORTED_SUFFIXES)})") from None
    except (OSError, SyntaxError, ValueError) as e:
        raise InvalidImageError(f"{p.name} is corrupt or truncated: {e}") from None
    check_image(arr)
    return arr


def _pil_to_array(im) -> np.ndarray:
    mode = im.mode
    if mode in ("I;16", "I;16B", "I;16L", "I;16N"):
        return np.asarray(im, dtype=np.uint16)
    if mode == "I":
        a = np.asarray(im)
        if a.min() >= 0 and a.max() <= 65535:
            return a.astype(np.uint16)
        return a.astype(np.float64)
    if mode == "F":
        return np.asarray(im, dtype=np.float64)
    if mode in ("1", "L"):
        return np.asarray(im.convert("L"))
    if mode == "LA":
        return np.asarray(im.convert("L"))
    # P, PA, RGBA, CMYK, YCbCr, LAB, HSV, RGB...
    return np.asarray(im.convert("RGB"))


def check_image(image) -> None:
    """Raise :class:`InvalidImageError` unless ``image`` is a usable 2-D grey or colour array."""
    if not isinstance(image, np.ndarray):
        raise InvalidImageError(f"image must be a numpy array, got {type(image).__name__}")
    if image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] not in (1, 3, 4)):
        raise InvalidImageError(
            f"image must have shape (H, W), (H, W, 3) or (H, W, 4), got {image.shape}"
        )
    if image.size == 0 or image.shape[0] < 2 or image.shape[1] < 2:
        raise InvalidImageError(
            f"image is too small ({image.shape[0]}x{image.shape[1]}); it needs at least 2x2 pixels"
        )
    if image.dtype.kind not in "uifb":
        raise InvalidImageError(f"image dtype {image.dtype} is not numeric")
    if image.dtype.kind == "f" and not np.isfinite(image).all():
        raise InvalidImageError("image contains NaN or infinite values")


def as_float_image(image: np.ndarray) -> np.ndarray:
    """Return ``image`` as float64 in [0, 1], shape (H, W) or (H, W, 3).

    Integer images are divided by their type's maximum (uint16 by 65535; a uint16 or
    wider integer image whose values all fit in 8 bits is still divided by its type's max,
    so contrast is kept relative); boolean images map to 0/1; float images already in [0, 1]
    are kept, other float ranges are scaled min-max. The alpha channel is dropped.
    """
    check_image(image)
    img = image
    if img.ndim == 3 and img.shape[2] == 4:
        img = img[..., :3]
    if img.ndim == 3 and img.shape[2] == 1:
        img = img[..., 0]
    if img.dtype.kind == "b":
        out = img.astype(np.float64)
    elif img.dtype.kind in "ui":
        info = np.iinfo(img.dtype)
        lo = 0 if info.min == 0 else info.min
        out = (img.astype(np.float64) - lo) / float(info.max - lo)
    else:
        out = img.astype(np.float64)
        lo, hi = float(out.min()), float(out.max())
        if lo < 0.0 or hi > 1.0:
            out = (out - lo) / (hi - lo) if hi > lo else np.zeros_like(out)
    return out
