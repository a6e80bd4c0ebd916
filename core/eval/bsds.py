"""Reading a folder in the BSDS500 layout: images/{split}/*.jpg, groundTruth/{split}/*.mat."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import SegappError

SPLITS = ("train", "val", "test")


class DatasetError(SegappError):
    """A BSDS folder, image or ground-truth file is missing or unreadable."""


@dataclass(frozen=True)
class BsdsItem:
    split: str
    id: str
    image: Path
    ground_truth: Path | None


def find_images(root, split: str | None = None) -> list[BsdsItem]:
    """Every image of the BSDS500 layout under ``root`` (one split or all), sorted.

    Raises
    ------
    DatasetError
        If ``root`` has no ``images/<split>`` folder with JPEG files.
    """
    root = Path(root)
    splits = SPLITS if split is None else (split,)
    if split is not None and split not in SPLITS:
        raise DatasetError(f"unknown split {split!r}; valid: {', '.join(SPLITS)}")
    try:
        if not root.is_dir():
            why = "it is a file, not a folder" if root.exists() else "it does not exist"
            raise DatasetError(f"{root} is not a BSDS500 folder: {why}")
    except OSError as e:
        raise DatasetError(f"cannot read {root}: {e.strerror or e}") from None
    items = []
    for s in splits:
        for img in sorted((root / "images" / s).glob("*.jpg")):
            gt = root / "groundTruth" / s / f"{img.stem}.mat"
            items.append(BsdsItem(s, img.stem, img, gt if gt.exists() else None))
    if not items:
        raise DatasetError(f"{root} is not a BSDS500 folder: no images/{{{','.join(splits)}}}/*.jpg found")
    return items


def find_set(root) -> list[BsdsItem]:
    """The images a person annotates as a set: a BSDS500 folder (every split, with ground
    truth), else the image files directly in ``root`` (any format segapp opens; hidden files
    left out), else those in ``root/images`` (the GrabCut layout), sorted by name, without
    ground truth (``split`` is ``''``).

    Raises
    ------
    DatasetError
        If ``root`` is not a folder, or holds neither layout.
    """
    from ..image import SUPPORTED_SUFFIXES

    root = Path(root)
    try:
        if (root / "images").is_dir():
            try:
                return find_images(root)
            except DatasetError:
                pass  # an images/ folder of another kind: the folder's own images are the set
        if not root.is_dir():
            why = "it is a file, not a folder" if root.exists() else "it does not exist"
            raise DatasetError(f"{root} is not a folder of images: {why}")
        files = _image_files(root)
        if not files and (root / "images").is_dir():  # e.g. the GrabCut layout: images/, masks/
            files = _image_files(root / "images")
    except OSError as e:
        raise DatasetError(f"cannot read {root}: {e.strerror or e}") from None
    if not files:
        raise DatasetError(f"{root} holds no images: neither image files ({', '.join(SUPPORTED_SUFFIXES)}) "
                           "nor a BSDS500 folder (images/<split>/*.jpg)")
    return [BsdsItem("", p.name, p, None) for p in files]


def _image_files(folder: Path) -> list[Path]:
    from ..image import SUPPORTED_SUFFIXES

    return sorted(p for p in folder.iterdir() if p.suffix.lower() in SUPPORTED_SUFFIXES
                  and not p.name.startswith(".") and p.is_file())


def with_ground_truth(items: list[BsdsItem], root) -> list[BsdsItem]:
    """The items that have a ground-truth file.

    Raises
    ------
    DatasetError
        If none has (an empty or missing ``groundTruth`` folder).
    """
    kept = [i for i in items if i.ground_truth is not None]
    if not kept:
        splits = ",".join(sorted({i.split for i in items}))
        raise DatasetError(f"none of the {len(items)} images under {root}/images/{{{splits}}} has a ground "
                           f"truth file {root}/groundTruth/<split>/<id>.mat")
    return kept


def image_size(path) -> tuple[int, int]:
    """(H, W) of an image file from its header, without decoding the pixels.

    Raises
    ------
    DatasetError
        The file is missing or not an image.
    """
    from PIL import Image

    try:
        with Image.open(path) as im:
            w, h = im.size
            if im.getexif().get(0x0112, 1) in (5, 6, 7, 8):  # shown rotated by a quarter turn
                w, h = h, w
    except Exception as e:  # noqa: BLE001 - any reader failure means a bad file
        raise DatasetError(f"cannot read image {Path(path).name}: {' '.join(str(e).split())}") from None
    return h, w


def check_item(item: BsdsItem) -> None:
    """Raise :class:`DatasetError` unless the item's ground truth is readable and every
    annotator's segmentation has its image's size."""
    h, w = image_size(item.image)
    load_ground_truth(item.ground_truth, shape=(h, w))


def load_ground_truth(path, shape: tuple[int, int] | None = None) -> list[np.ndarray]:
    """The human segmentations of one ``.mat`` file, each (H, W) int32 with labels from 0.

    Parameters
    ----------
    path : str or path-like
    shape : (H, W), optional
        The image's size; every segmentation must have it.

    Raises
    ------
    DatasetError
        Missing, unreadable or foreign file, no segmentation, labels that are not whole
        numbers from 1, or a size other than ``shape``.
    """
    from scipy.io import loadmat

    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"ground truth not found: {path}")
    try:
        mat = loadmat(str(path))
    except Exception as e:  # noqa: BLE001 - corrupt or foreign .mat: say which file
        raise DatasetError(f"cannot read ground truth {path.name}: {' '.join(str(e).split()) or type(e).__name__}") from None
    if "groundTruth" not in mat:
        raise DatasetError(f"{path.name} has no 'groundTruth' variable (not a BSDS500 ground-truth file)")
    try:
        raw = [np.asarray(g["Segmentation"][0, 0]) for g in np.asarray(mat["groundTruth"]).ravel()]
    except (KeyError, IndexError, TypeError, ValueError):
        raise DatasetError(f"{path.name}: groundTruth is not a list of structs with a 'Segmentation' field") from None
    if not raw:
        raise DatasetError(f"{path.name} holds no segmentation")
    segs = []
    for k, s in enumerate(raw):
        if s.ndim != 2 or s.dtype.kind not in "uif" or s.size == 0:
            raise DatasetError(f"{path.name}: segmentation {k + 1} is not a 2-D array of labels")
        if s.dtype.kind == "f" and not (np.isfinite(s).all() and (s == np.round(s)).all()):
            raise DatasetError(f"{path.name}: segmentation {k + 1} has labels that are not whole numbers")
        if s.min() < 1 or s.max() > 2**31 - 1:
            raise DatasetError(f"{path.name}: segmentation {k + 1} has labels outside 1..2**31-1")
        if shape is not None and s.shape != tuple(shape):
            raise DatasetError(f"{path.name}: segmentation {k + 1} is {s.shape[0]}x{s.shape[1]} but its image "
                               f"is {shape[0]}x{shape[1]}")
        segs.append(s.astype(np.int32) - 1)
    return segs
