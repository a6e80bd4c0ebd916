"""Make segapp/assets/demo.png, segapp's own demo image (no Berkeley data).

A 360x240 colour scene built to show what constraints do: two orange discs of the same
colour (normalised cut puts them in one segment; one cannot-link separates them), a sky
with a strong vertical gradient (ncut tends to split it; one must-link joins it), a green
field, and mild noise. The script lives here with the project's other asset sources; its
output is package data, installed with segapp. Run: python assets/make_demo.py
"""

from pathlib import Path

import numpy as np
from PIL import Image


def make(h=240, w=360, seed=7):
    rng = np.random.default_rng(seed)
    r, c = np.mgrid[0:h, 0:w].astype(float)
    img = np.zeros((h, w, 3))
    t = r / (0.62 * h)
    img[:] = np.stack([0.35 + 0.45 * t, 0.55 + 0.35 * t, 0.95 - 0.05 * t], -1)  # sky, dark to pale
    ground = r > 0.62 * h + 8 * np.sin(c / 40.0)
    img[ground] = (0.30, 0.55, 0.25)
    img[ground] *= (1.0 - 0.25 * ((r[ground] - 0.62 * h) / (0.38 * h)))[:, None]
    for cy, cx, rad in ((0.62 * h, 0.28 * w, 38), (0.66 * h, 0.70 * w, 44)):
        disc = (r - cy) ** 2 + (c - cx) ** 2 < rad ** 2
        img[disc] = (0.92, 0.55, 0.15)
    img += rng.normal(0, 0.025, img.shape)
    return (np.clip(img, 0, 1) * 255).round().astype(np.uint8)


if __name__ == "__main__":
    out = Path(__file__).resolve().parent.parent / "segapp" / "assets" / "demo.png"
    Image.fromarray(make()).save(out)
    print(out)
