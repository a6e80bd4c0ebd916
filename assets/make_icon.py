"""Draw segapp's application icon: segapp/assets/icon-<size>.png at each size of ``SIZES``.

Two segments (an orange disc on a blue tile, split by a white boundary, in the overlay's
palette colours) and the two kinds of constraint drawn as in the app: a green must-link joining
two points of the blue segment and a red cannot-link across the boundary. Each size is drawn
from the same shapes given as distance functions (no scaling of pixels), with strokes kept at
least about 1.5 px wide so the links still read at 16 and 32 px. The output depends on numpy
only, so a rerun reproduces the committed files exactly. Run: python assets/make_icon.py
"""

from pathlib import Path

import numpy as np
from PIL import Image

SIZES = (16, 24, 32, 48, 64, 128, 256)
OUT = Path(__file__).resolve().parent.parent / "segapp" / "assets"

BLUE, ORANGE, WHITE = (0, 114, 178), (230, 159, 0), (255, 255, 255)
GREEN, RED, INK = (0, 200, 70), (230, 30, 30), (20, 20, 20)  # the canvas's link colours

# Shapes on a unit square (x right, y down).
DISC = ((0.60, 0.62), 0.30)
MUST_LINK = ((0.16, 0.20), (0.80, 0.16))   # both ends on the blue segment
CANNOT_LINK = ((0.62, 0.64), (0.18, 0.82))  # disc to blue, across the boundary


def _rounded_square(x, y, radius):
    q = np.maximum(np.abs(np.stack([x - 0.5, y - 0.5])) - (0.5 - radius), 0.0)
    inner = np.minimum(np.maximum(np.abs(x - 0.5), np.abs(y - 0.5)) - (0.5 - radius), 0.0)
    return np.hypot(q[0], q[1]) + inner - radius


def _circle(x, y, centre, radius):
    return np.hypot(x - centre[0], y - centre[1]) - radius


def _segment(x, y, a, b):
    """Distance to the line segment a-b."""
    ax, ay = a
    dx, dy = b[0] - ax, b[1] - ay
    t = np.clip(((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy), 0.0, 1.0)
    return np.hypot(x - ax - t * dx, y - ay - t * dy)


def draw(size: int) -> np.ndarray:
    """The icon at ``size`` x ``size`` pixels, RGBA uint8 of shape (size, size, 4)."""
    px = 1.0 / size
    y, x = (np.mgrid[0:size, 0:size] + 0.5) * px

    def cover(dist):  # analytic anti-aliasing: coverage of a pixel by the region dist < 0
        return np.clip(0.5 - dist / px, 0.0, 1.0)[..., None]

    line = max(0.075, 1.6 * px)       # link width, at least 1.6 px
    dot = max(0.085, 1.7 * px)        # endpoint radius
    ink = max(0.022, 0.7 * px)        # dark outline around links, as on the canvas
    ring = max(0.025, 0.8 * px)       # white boundary between the segments

    rgb = np.zeros((size, size, 3))
    tile = cover(_rounded_square(x, y, 0.2))
    rgb[:] = BLUE
    disc_d = _circle(x, y, *DISC)
    rgb = rgb * (1 - cover(np.abs(disc_d) - ring / 2)) + np.multiply(cover(np.abs(disc_d) - ring / 2), WHITE)
    inner = cover(disc_d + ring / 2)
    rgb = rgb * (1 - inner) + inner * np.array(ORANGE)
    for (a, b), colour in ((MUST_LINK, GREEN), (CANNOT_LINK, RED)):
        body = np.minimum(_segment(x, y, a, b) - line / 2,
                          np.minimum(_circle(x, y, a, dot), _circle(x, y, b, dot)))
        outline = cover(body - ink)
        rgb = rgb * (1 - outline) + outline * np.array(INK)
        fill = cover(body)
        rgb = rgb * (1 - fill) + fill * np.array(colour)
    out = np.concatenate([rgb, 255.0 * tile], axis=-1)
    return np.round(out).astype(np.uint8)


if __name__ == "__main__":
    OUT.mkdir(exist_ok=True)
    for s in SIZES:
        path = OUT / f"icon-{s}.png"
        Image.fromarray(draw(s), "RGBA").save(path, optimize=True)
        print(path)
