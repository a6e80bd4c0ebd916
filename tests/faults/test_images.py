"""Bad image files and arrays: ``core.load_image``, ``core.segment`` and ``segapp segment``
answer each with an InvalidImageError (exit status 2 and one line on the command line)."""

from __future__ import annotations

import numpy as np
import pytest

from segapp import core
from segapp.core.errors import InvalidImageError

from .helpers import encoded, expect_cli_error, expect_error, noise, png16, png_header_claiming, write

GOOD_PNG = encoded(noise(), "PNG")


def _frames(fmt):
    def make(tmp_path):
        from PIL import Image

        frames = [Image.fromarray(noise(seed=k)) for k in range(3)]
        p = tmp_path / f"pages.{fmt.lower()}"
        frames[0].save(p, format=fmt, save_all=True, append_images=frames[1:])
        return p
    return make


# name -> (make(tmp_path) -> path, message pattern)
FILES = {
    "missing": (lambda t: t / "nope.png", "not found"),
    "missing-non-ascii": (lambda t: t / "über 画像.png", "not found: .*über 画像.png"),
    "folder": (lambda t: (t / "dir.png").mkdir() or t / "dir.png", "is a folder"),
    "zero-bytes": (lambda t: write(t / "empty.png", b""), "empty \\(0 bytes\\)"),
    "random-bytes": (lambda t: write(t / "noise.png", np.random.RandomState(0).bytes(500)), "not an image file"),
    "text-as-jpeg": (lambda t: write(t / "notes.jpg", b"hello, I am not a JPEG\n" * 20), "not an image file"),
    "png-signature-only": (lambda t: write(t / "sig.png", GOOD_PNG[:8]), "corrupt|not an image"),
    "png-truncated": (lambda t: write(t / "half.png", GOOD_PNG[:len(GOOD_PNG) // 2]), "corrupt or truncated"),
    "png-bad-crc": (lambda t: write(t / "crc.png", GOOD_PNG[:29] + b"\x00\x00\x00\x00" + GOOD_PNG[33:]), "corrupt"),
    "jpeg-truncated": (lambda t: write(t / "half.jpg", encoded(noise(64, 64), "JPEG")[:300]), "corrupt"),
    "jpeg-garbage-after-soi": (lambda t: write(t / "g.jpg", b"\xff\xd8" + b"\x13" * 400), "corrupt|not an image"),
    "tiff-truncated": (lambda t: write(t / "half.tif", encoded(noise(), "TIFF")[:200]), "corrupt|truncated|not an image"),
    "bmp-truncated": (lambda t: write(t / "half.bmp", encoded(noise(), "BMP")[:100]), "corrupt|truncated|not an image"),
    "bomb-100000x100000": (lambda t: write(t / "bomb.png", png_header_claiming(100_000, 100_000)),
                           "10,000,000,000 pixels, more than the limit"),
    "bomb-20000x20000": (lambda t: write(t / "big.png", png_header_claiming(20_000, 20_000)),
                         "decompression bombs.*--max-pixels"),
    "bomb-1x2000000000": (lambda t: write(t / "thin.png", png_header_claiming(1, 2_000_000_000)), "more than the limit"),
    "multi-page-tiff": (_frames("TIFF"), "3 pages"),
    "animated-gif": (_frames("GIF"), "3 pages"),
    "animated-png": (_frames("PNG"), "3 pages"),
    "one-pixel": (lambda t: write(t / "dot.png", encoded(noise(1, 1), "PNG")), "too small"),
    "one-row": (lambda t: write(t / "row.png", encoded(noise(1, 50), "PNG")), "too small"),
    "12-bit-colour-png": (lambda t: write(t / "rgb12.png", png16((np.random.RandomState(0).rand(8, 9, 3) * 4095)
                                                                  .astype(np.uint16))), "16-bit colour PNG"),
    "broken-symlink": (lambda t: (t / "link.png").symlink_to(t / "gone.png") or t / "link.png", "not found"),
    "name-too-long": (lambda t: t / ("n" * 300 + ".png"), "too long"),
}


@pytest.mark.parametrize("case", list(FILES))
def test_load_image(case, tmp_path):
    make, match = FILES[case]
    expect_error(InvalidImageError, core.load_image, make(tmp_path), match=match)


CLI_FILES = ["missing", "folder", "zero-bytes", "text-as-jpeg", "png-truncated", "bomb-100000x100000",
             "multi-page-tiff", "one-pixel", "12-bit-colour-png"]


@pytest.mark.parametrize("case", CLI_FILES)
def test_segment_command(case, tmp_path, capsys):
    make, match = FILES[case]
    expect_cli_error(["segment", make(tmp_path), "--out", tmp_path / "m.png"], capsys, match)
    assert not (tmp_path / "m.png").exists()


def test_unreadable_file(tmp_path, monkeypatch):
    p = write(tmp_path / "secret.png", GOOD_PNG)

    def denied(*a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("segapp.core._io.open", denied, raising=False)  # what open_to_read calls
    expect_error(InvalidImageError, core.load_image, p, match="no permission to read")


def test_unreadable_file_really(tmp_path):
    import os

    if os.geteuid() == 0:
        pytest.skip("root reads files whatever their permissions (the mocked case covers this)")
    p = write(tmp_path / "secret.png", GOOD_PNG)
    p.chmod(0)
    expect_error(InvalidImageError, core.load_image, p, match="no permission to read")


@pytest.mark.parametrize("limit, match", [
    (0, "at least 4"), (-5, "at least 4"), ("many", "whole number"), (True, "whole number"), (2.5, "whole number"),
])
def test_bad_pixel_limit_argument(limit, match, tmp_path):
    p = write(tmp_path / "a.png", GOOD_PNG)
    expect_error(InvalidImageError, core.load_image, p, max_pixels=limit, match=match)


@pytest.mark.parametrize("value", ["lots", "1.5", "-3", "inf"])
def test_bad_pixel_limit_environment(value, tmp_path, monkeypatch):
    p = write(tmp_path / "a.png", GOOD_PNG)
    monkeypatch.setenv("SEGAPP_MAX_PIXELS", value)
    expect_error(InvalidImageError, core.load_image, p, match="SEGAPP_MAX_PIXELS")


def test_pixel_limit_is_a_policy_with_three_ways_to_raise_it(tmp_path, monkeypatch, capsys):
    """24 x 32 = 768 pixels: refused under a limit of 700 given by argument, environment or
    command line, read under 800."""
    p = write(tmp_path / "a.png", GOOD_PNG)
    expect_error(InvalidImageError, core.load_image, p, max_pixels=700, match="768 pixels")
    assert core.load_image(p, max_pixels=800).shape == (24, 32, 3)
    monkeypatch.setenv("SEGAPP_MAX_PIXELS", "700")
    expect_error(InvalidImageError, core.load_image, p, match="limit of 700")
    assert core.load_image(p, max_pixels=800).shape == (24, 32, 3)  # the argument wins
    monkeypatch.delenv("SEGAPP_MAX_PIXELS")
    expect_cli_error(["segment", p, "--max-pixels", "700", "--out", tmp_path / "m.png"], capsys, "--max-pixels")
    expect_cli_error(["segment", p, "--max-pixels", "0", "--out", tmp_path / "m.png"], capsys, "at least 4")


def test_pillow_limit_is_restored(tmp_path):
    from PIL import Image

    before = Image.MAX_IMAGE_PIXELS
    with pytest.raises(InvalidImageError):
        core.load_image(write(tmp_path / "bomb.png", png_header_claiming(100_000, 100_000)))
    core.load_image(write(tmp_path / "a.png", GOOD_PNG))
    assert Image.MAX_IMAGE_PIXELS == before


@pytest.mark.parametrize("path", [None, 42, 3.5, ["a.png"]])
def test_path_of_wrong_type(path):
    expect_error(InvalidImageError, core.load_image, path, match="must be a string or a path")


ARRAYS = {
    "nan": (np.full((8, 8), np.nan), "NaN"),
    "inf": (np.full((8, 8, 3), np.inf), "infinite"),
    "complex": (np.zeros((8, 8), complex), "not a real number"),
    "strings": (np.full((8, 8), "a"), "not a real number"),
    "objects": (np.full((8, 8), None, dtype=object), "not a real number"),
    "empty": (np.zeros((0, 8)), "too small"),
    "one-pixel": (np.zeros((1, 1)), "too small"),
    "one-column": (np.zeros((30, 1, 3)), "too small"),
    "four-dimensional": (np.zeros((4, 4, 3, 2)), "shape"),
    "five-channels": (np.zeros((4, 4, 5)), "shape"),
    "scalar": (np.float64(3.0), "shape"),
    "none": (None, "shape|real number"),
}


@pytest.mark.parametrize("case", list(ARRAYS))
def test_segment_bad_array(case):
    image, match = ARRAYS[case]
    expect_error(InvalidImageError, core.segment, image, match=match)
