"""Reading image files and normalising arrays to what the methods work on.

:func:`load_image` reads PNG, JPEG, TIFF, BMP (and whatever else Pillow reads) with the EXIF
orientation applied. Its rules, one per kind of file people have:

* **Size.** A file whose header claims more than ``max_pixels`` pixels (default
  :data:`DEFAULT_MAX_PIXELS`, 100 megapixels) is refused before any pixel is decoded: a
  decompression bomb (a few kB claiming 100000 x 100000) cannot take the memory. The limit
  replaces Pillow's own (``PIL.Image.MAX_IMAGE_PIXELS``) and is raised per call
  (``load_image(path, max_pixels=...)``), for every call by the environment variable
  ``SEGAPP_MAX_PIXELS``, or on the command line with ``--max-pixels``.
* **Bit depth.** 8-bit files give uint8; 16-bit grey files (PNG, TIFF, either byte order)
  give uint16; 16-bit colour TIFFs are read in full by tifffile (Pillow would keep only the
  top 8 bits, which turns 12-bit data black). 1-bit files give 0/255; 32-bit integer files
  uint16 when their values fit, float64 otherwise; float files float64. A 16-bit colour PNG
  is read at 8 bits per channel (Pillow's limit); one whose values would then all be
  below 16 (12-bit data) is refused by name rather than shown black.
* **Range.** :func:`value_range` is the one place that decides which values map to black
  and white, for display and for segmentation alike: integer data wider than 8 bits is
  scaled by the smallest standard depth (8, 10, 12, 14 or 16 bits) that holds its largest
  value, so 12-bit data in a 16-bit container spans the full range instead of 1/16 of it.
* **Alpha.** Kept as the last channel ((H, W, 2) grey + alpha, (H, W, 4) RGBA); wherever
  the image is turned into numbers (:func:`as_float_image`, :func:`working_image`, so the
  display and the graph) it is composited on white, as a browser shows a transparent image
  on a white page. A transparent background therefore becomes one flat white region the
  methods see as such, rather than whatever colour values hide under alpha 0 (often black
  or noise). Palette and grey files with a transparent colour are treated the same way.
* **Colour modes.** Palette, CMYK (converted without a colour profile, so colours are
  approximate), YCbCr, LAB and HSV are converted to RGB; any mode Pillow cannot convert is
  refused by name.
* **Pages.** A multi-page or animated file (TIFF stack, GIF, APNG) is refused by name with
  its page count, since which page is meant is not known; an MPO (the JPEG many phone
  cameras write, a photo plus depth or preview frames) gives its primary image.
* Missing files, folders, unreadable files, empty (0-byte) files, truncated or corrupt
  data: :class:`~core.errors.InvalidImageError` naming the file and the problem.

:func:`as_float_image` turns any accepted array into float64 in [0, 1] of shape (H, W) or
(H, W, 3).
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ._io import open_to_read
from .errors import InvalidImageError
from .image_file import (_is_wide_colour_tiff, _orient, _pil_to_array, _png_bit_depth, _read_tiff, _reason,
                         _signature)

SUPPORTED_SUFFIXES = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp")
DEFAULT_MAX_PIXELS = 100_000_000
MAX_PIXELS_ENV = "SEGAPP_MAX_PIXELS"
STANDARD_DEPTHS = (8, 10, 12, 14, 16)

_PILLOW_LIMIT_LOCK = threading.Lock()


def max_pixels_limit(max_pixels: int | None = None) -> int:
    """The pixel limit in force: ``max_pixels``, else ``$SEGAPP_MAX_PIXELS``, else the default.

    Raises
    ------
    InvalidImageError
        The limit given (or the environment variable) is not a positive whole number.
    """
    where = "max_pixels"
    if max_pixels is None:
        env = os.environ.get(MAX_PIXELS_ENV, "").strip()
        if not env:
            return DEFAULT_MAX_PIXELS
        where = f"environment variable {MAX_PIXELS_ENV}"
        try:
            value = float(env) if any(c in env.lower() for c in ".e") else int(env)
            if value != int(value):
                raise ValueError(env)
            max_pixels = int(value)
        except (ValueError, OverflowError):
            raise InvalidImageError(f"{where} must be a whole number of pixels, got {env!r}") from None
    if isinstance(max_pixels, bool) or not isinstance(max_pixels, (int, np.integer)) or max_pixels < 4:
        raise InvalidImageError(f"{where} must be a whole number of pixels of at least 4, got {max_pixels!r}")
    return int(max_pixels)


@contextmanager
def _own_pixel_limit():
    """Pillow's decompression-bomb check off while a header is read: :func:`load_image`
    applies its own limit right after ``Image.open`` and before any pixel is decoded."""
    from PIL import Image

    with _PILLOW_LIMIT_LOCK:
        old = Image.MAX_IMAGE_PIXELS
        Image.MAX_IMAGE_PIXELS = None
        try:
            yield
        finally:
            Image.MAX_IMAGE_PIXELS = old


def load_image(path: str | os.PathLike, max_pixels: int | None = None) -> np.ndarray:
    """Read an image file into an array, EXIF orientation applied (rules: module docstring).

    Parameters
    ----------
    path : str or path-like
    max_pixels : int, optional
        Refuse files with more pixels than this (default ``$SEGAPP_MAX_PIXELS`` or
        :data:`DEFAULT_MAX_PIXELS`).

    Returns
    -------
    image : ndarray, shape (H, W), (H, W, 2), (H, W, 3) or (H, W, 4)
        uint8 for 8-bit files, uint16 for 16-bit files; a last channel of alpha when the
        file has transparency.

    Raises
    ------
    InvalidImageError
        The file is missing, a folder, unreadable, empty, corrupt or truncated, not an
        image, too large, multi-page, or in a mode segapp cannot convert.
    """
    from PIL import Image, ImageOps, UnidentifiedImageError

    if not isinstance(path, (str, os.PathLike)):
        raise InvalidImageError(f"image path must be a string or a path, got {type(path).__name__}")
    limit = max_pixels_limit(max_pixels)
    p = Path(path)
    f = open_to_read(p, InvalidImageError, "image file")
    with f:
        if os.fstat(f.fileno()).st_size == 0:
            raise InvalidImageError(f"{p.name} is empty (0 bytes)")
        try:
            with _own_pixel_limit():
                im = Image.open(f)
        except UnidentifiedImageError:
            f.seek(0)
            kind = _signature(f.read(8))
            if kind:
                raise InvalidImageError(f"{p.name} starts like a {kind} file but is corrupt "
                                        "(its header cannot be read)") from None
            raise InvalidImageError(f"{p.name} is not an image file segapp can read "
                                    f"(supported: {', '.join(SUPPORTED_SUFFIXES)})") from None
        except Exception as e:  # noqa: BLE001 - any decoder failure on a header means a bad file
            raise InvalidImageError(f"{p.name} is corrupt or truncated: {_reason(e)}") from None
        with im:
            w, h = im.size
            if w * h > limit:
                raise InvalidImageError(
                    f"{p.name} claims {w}x{h} = {w * h:,} pixels, more than the limit of {limit:,} "
                    f"(a guard against decompression bombs); if you trust the file, raise the limit "
                    f"with --max-pixels or the environment variable {MAX_PIXELS_ENV}")
            frames = int(getattr(im, "n_frames", 1) or 1)
            if frames > 1 and im.format != "MPO":
                raise InvalidImageError(f"{p.name} has {frames} pages or frames; segapp reads single-image "
                                        "files: save the page you want as its own file")
            try:
                if _is_wide_colour_tiff(im):
                    arr = _orient(_read_tiff(p), im.getexif().get(0x0112, 1))
                else:
                    im.load()
                    ImageOps.exif_transpose(im, in_place=True)  # no copy: a 12 MP photo is 48 MB in PIL
                    arr = _pil_to_array(im, p, _png_bit_depth(f, im))
            except InvalidImageError:
                raise
            except MemoryError:
                raise InvalidImageError(f"{p.name} ({w}x{h}) is too large to decode in the memory "
                                        "available") from None
            except Exception as e:  # noqa: BLE001 - truncated data, bad EXIF, decoder errors
                raise InvalidImageError(f"{p.name} is corrupt or truncated: {_reason(e)}") from None
    check_image(arr)
    return arr


def check_image(image) -> None:
    """Raise :class:`InvalidImageError` unless ``image`` is a usable 2-D grey or colour array
    (shape (H, W), or (H, W, c) with c = 1 grey, 2 grey + alpha, 3 RGB, 4 RGBA)."""
    if not isinstance(image, np.ndarray):
        raise InvalidImageError(f"image must be a numpy array, got {type(image).__name__}")
    if image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] not in (1, 2, 3, 4)):
        raise InvalidImageError(
            f"image must have shape (H, W) or (H, W, c) with c = 1, 2, 3 or 4 channels, got {image.shape}"
        )
    if image.size == 0 or image.shape[0] < 2 or image.shape[1] < 2:
        raise InvalidImageError(
            f"image is too small ({image.shape[0]}x{image.shape[1]}); it needs at least 2x2 pixels"
        )
    if image.dtype.kind not in "uifb":
        raise InvalidImageError(f"image dtype {image.dtype} is not a real number type")
    if image.dtype.kind == "f" and not np.isfinite(image).all():
        raise InvalidImageError("image contains NaN or infinite values")


def _split(image: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """(colour (H, W) or (H, W, 3), alpha (H, W) or None)."""
    if image.ndim == 2:
        return image, None
    c = image.shape[2]
    if c == 1:
        return image[..., 0], None
    if c == 2:
        return image[..., 0], image[..., 1]
    if c == 4:
        return image[..., :3], image[..., 3]
    return image, None


def value_range(image: np.ndarray) -> tuple[float, float]:
    """The values that map to 0 and 1, for display and segmentation alike.

    Boolean: 0 and 1. uint8: 0 and 255. Other integers with values in [0, 65535]: 0 and
    ``2**b - 1`` for the smallest ``b`` of 8, 10, 12, 14, 16 that holds the largest value
    (12-bit data in a 16-bit file: 4095); other integer data: its own minimum and maximum.
    Float images already in [0, 1]: 0 and 1, other float ranges: their own minimum and
    maximum. An alpha channel (last of 2 or 4) is not part of the range.
    """
    if image.ndim == 3 and image.shape[2] in (2, 4):
        image = _split(image)[0]
    if image.dtype.kind == "b":
        return 0.0, 1.0
    if image.dtype == np.uint8:
        return 0.0, 255.0
    lo, hi = (float(image.min()), float(image.max())) if image.size else (0.0, 1.0)
    if image.dtype.kind in "ui":
        if lo >= 0 and hi <= 65535:
            bits = next(b for b in STANDARD_DEPTHS if hi < 2 ** b)
            return 0.0, float(2 ** bits - 1)
        return lo, hi
    if lo >= 0.0 and hi <= 1.0:
        return 0.0, 1.0
    return lo, hi


def _alpha_scale(alpha: np.ndarray) -> float:
    if alpha.dtype.kind == "b" or alpha.dtype.kind == "f":
        return 1.0
    if alpha.dtype == np.uint8:
        return 255.0
    return 255.0 if alpha.max() <= 255 else 65535.0


def _to_float(colour: np.ndarray, alpha: np.ndarray | None, lo: float, hi: float,
              a_scale: float = 1.0) -> np.ndarray:
    """``colour`` scaled by (lo, hi) to [0, 1] and composited on white by ``alpha``."""
    a = None
    if alpha is not None:
        a = np.clip(alpha.astype(np.float64) / a_scale, 0.0, 1.0)
        a = None if a.min() >= 1.0 else (a[..., None] if colour.ndim == 3 else a)
    out = colour.astype(np.float64, copy=False)
    if out is colour and (a is not None or (lo, hi) != (0.0, 1.0)):
        out = out.copy()  # never scale the caller's array in place
    if hi <= lo:
        out[...] = 0.0
    elif (lo, hi) != (0.0, 1.0):
        out -= lo
        out /= hi - lo
    if a is not None:
        out *= a
        out += 1.0 - a
    return out


def as_float_image(image: np.ndarray) -> np.ndarray:
    """Return ``image`` as float64 in [0, 1], shape (H, W) or (H, W, 3).

    Values are mapped by :func:`value_range`; an alpha channel is composited on white.
    """
    check_image(image)
    colour, alpha = _split(image)
    a_scale = _alpha_scale(alpha) if alpha is not None else 1.0
    return _to_float(colour, alpha, *value_range(colour), a_scale)


def working_image(image: np.ndarray, max_pixels: int) -> tuple[np.ndarray, int]:
    """A float copy of ``image`` with at most ``max_pixels`` pixels, by block means.

    Parameters
    ----------
    image : ndarray, shape (H, W) or (H, W, c), c in 1-4
    max_pixels : int

    Returns
    -------
    work : ndarray, shape (ceil(H / f), ceil(W / f)[, 3]), float64 in [0, 1]
        Each pixel the mean of an ``f x f`` block of ``image`` (fewer at the right and
        bottom edges), scaled and composited as :func:`as_float_image` does.
    f : int
        The block size, ``ceil(sqrt(H W / max_pixels))`` (1: the image itself).

    Notes
    -----
    Strips of ``f`` rows are converted and averaged one at a time, so a 12-megapixel photo
    never exists as a float64 array (about 290 MB); only the working copy does.
    """
    check_image(image)
    colour, alpha = _split(image)
    h, w = colour.shape[:2]
    f = max(1, int(np.ceil(np.sqrt(h * w / float(max_pixels)))))
    lo, hi = value_range(colour)
    a_scale = _alpha_scale(alpha) if alpha is not None else 1.0
    if f == 1:
        return _to_float(colour, alpha, lo, hi, a_scale), 1
    starts = np.arange(0, w, f)
    counts = np.diff(np.r_[starts, w]).astype(np.float64)
    out = np.empty((-(-h // f), len(starts)) + colour.shape[2:], np.float64)
    for i in range(out.shape[0]):
        rows = slice(i * f, (i + 1) * f)
        strip = _to_float(colour[rows], None if alpha is None else alpha[rows], lo, hi, a_scale)
        sums = np.add.reduceat(strip.sum(axis=0), starts, axis=0)
        n = strip.shape[0] * counts
        out[i] = sums / (n[:, None] if sums.ndim == 2 else n)
    return out, f
