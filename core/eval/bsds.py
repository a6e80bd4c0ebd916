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
    items = []
    for s in splits:
        for img in sorted((root / "images" / s).glob("*.jpg")):
            gt = root / "groundTruth" / s / f"{img.stem}.mat"
            items.append(BsdsItem(s, img.stem, img, gt if gt.exists() else None))
    if not items:
        raise DatasetError(f"{root} is not a BSDS500 folder: no images/{{{','.join(splits)}}}/*.jpg found")
    return items


def load_ground_truth(path) -> list[np.ndarray]:
    """The human segmentations of one ``.mat`` file, each (H, W) int32 with labels from 0."""
    from scipy.io import loadmat

    path = Path(path)
    try:
        gt = loadmat(str(path))["groundTruth"][0]
        segs = [np.asarray(g["Segmentation"][0, 0], dtype=np.int32) - 1 for g in gt]
    except FileNotFoundError:
        raise DatasetError(f"ground truth not found: {path}") from None
    except Exception as e:  # noqa: BLE001 - corrupt or foreign .mat: say which file
        raise DatasetError(f"cannot read ground truth {path.name}: {type(e).__name__}: {e}") from None
    if not segs:
        raise DatasetError(f"{path.name} holds no segmentation")
    return segs
