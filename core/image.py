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


def _channels(image: np.ndarray) -> np.ndarray:
    """Drop the alpha channel and a singleton channel axis: (H, W) or (H, W, 3)."""
    if image.ndim == 3 and image.shape[2] == 4:
        image = image[..., :3]
    if image.ndim == 3 and image.shape[2] == 1:
        image = image[..., 0]
    return image


def value_range(image: np.ndarray) -> tuple[float, float]:
    """The values that map to 0 and 1 in :func:`as_float_image`.

    Integer images: their type's range (uint16 by 65535); boolean: 0 and 1; float images
    already in [0, 1]: 0 and 1, other float ranges: their own minimum and maximum.
    """
    if image.dtype.kind == "b":
        return 0.0, 1.0
    if image.dtype.kind in "ui":
        info = np.iinfo(image.dtype)
        return float(info.min), float(info.max)
    lo, hi = float(image.min()), float(image.max())
    if lo >= 0.0 and hi <= 1.0:
        return 0.0, 1.0
    return lo, hi


def _scale(values: np.ndarray, lo: float, hi: float) -> np.ndarray:
    out = values.astype(np.float64, copy=values.dtype != np.float64)
    if (lo, hi) == (0.0, 1.0):
        return out
    if hi <= lo:
        return np.zeros_like(out)
    out -= lo
    out /= hi - lo
    return out


def as_float_image(image: np.ndarray) -> np.ndarray:
    """Return ``image`` as float64 in [0, 1], shape (H, W) or (H, W, 3).

    Values are mapped by :func:`value_range`; the alpha channel is dropped.
    """
    check_image(image)
    img = _channels(image)
    return _scale(img, *value_range(img))


def working_image(image: np.ndarray, max_pixels: int) -> tuple[np.ndarray, int]:
    """A float copy of ``image`` with at most ``max_pixels`` pixels, by block means.

    Parameters
    ----------
    image : ndarray, shape (H, W), (H, W, 1), (H, W, 3) or (H, W, 4)
    max_pixels : int

    Returns
    -------
    work : ndarray, shape (ceil(H / f), ceil(W / f)[, 3]), float64 in [0, 1]
        Each pixel the mean of an ``f x f`` block of ``image`` (fewer at the right and
        bottom edges), scaled as :func:`as_float_image` scales the whole image.
    f : int
        The block size, ``ceil(sqrt(H W / max_pixels))`` (1: the image itself).

    Notes
    -----
    Strips of ``f`` rows are averaged one at a time, so a 12-megapixel photo never exists
    as a float64 array (about 290 MB); only the working copy does.
    """
    check_image(image)
    img = _channels(image)
    h, w = img.shape[:2]
    f = max(1, int(np.ceil(np.sqrt(h * w / float(max_pixels)))))
    lo, hi = value_range(img)
    if f == 1:
        return _scale(img, lo, hi), 1
    starts = np.arange(0, w, f)
    counts = np.diff(np.r_[starts, w]).astype(np.float64)
    out = np.empty((-(-h // f), len(starts)) + img.shape[2:], np.float64)
    for i in range(out.shape[0]):
        strip = img[i * f:(i + 1) * f]
        sums = np.add.reduceat(strip.sum(axis=0, dtype=np.float64), starts, axis=0)
        n = strip.shape[0] * counts
        out[i] = sums / (n[:, None] if sums.ndim == 2 else n)
    return _scale(out, lo, hi), f
