"""Images as people have them (core/image.py's rules): bit depths, ranges, alpha, modes."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from segapp import core
from segapp.core.image import value_range, working_image
from segapp.core.render import to_rgb8
from tests.faults.helpers import png16


def twelve_bit(h=48, w=64):
    """Left half dark, right half bright, in 12-bit units (0..4095) with mild noise."""
    r = np.random.RandomState(0)
    a = np.where(np.arange(w)[None, :] < w // 2, 800, 3300) + r.randint(-60, 60, (h, w))
    return a.astype(np.uint16)


@pytest.mark.parametrize("values, expected", [
    (np.array([[0, 255]], np.uint8), (0, 255)),
    (np.array([[0, 200]], np.uint16), (0, 255)),
    (np.array([[0, 1000]], np.uint16), (0, 1023)),
    (np.array([[0, 4000]], np.uint16), (0, 4095)),
    (np.array([[0, 16000]], np.uint16), (0, 16383)),
    (np.array([[0, 40000]], np.uint16), (0, 65535)),
    (np.array([[0, 4000]], np.int64), (0, 4095)),
    (np.array([[-5, 100]], np.int32), (-5, 100)),
    (np.array([[0, 100000]], np.uint32), (0, 100000)),
    (np.array([[False, True]]), (0, 1)),
    (np.array([[0.2, 0.9]]), (0, 1)),
    (np.array([[-1.0, 3.0]]), (-1, 3)),
])
def test_value_range_rules(values, expected):
    assert value_range(values) == expected


def test_12_bit_tiff_is_shown_and_segmented_with_its_real_range(tmp_path):
    a = twelve_bit()
    Image.fromarray(a).save(tmp_path / "g12.tif")
    img = core.load_image(tmp_path / "g12.tif")
    assert img.dtype == np.uint16 and np.array_equal(img, a)
    shown = to_rgb8(img)
    assert shown[:, 40:].mean() > 180 and shown[:, :20].mean() < 70  # not nearly black
    f = core.as_float_image(img)
    assert np.allclose(f, a / 4095.0)
    work, factor = working_image(img, 48 * 64 // 4)  # the graph's copy: same range, block means
    assert factor == 2 and np.allclose(work, (a / 4095.0).reshape(24, 2, 32, 2).mean((1, 3)))
    seg12 = core.segment(img, method="ncut", max_nodes=100)
    segf = core.segment(a / 4095.0, method="ncut", max_nodes=100)
    assert np.array_equal(seg12.labels, segf.labels)
    assert seg12.labels[:, 0].min() == seg12.labels[:, 0].max() != seg12.labels[0, -1]  # the halves


def test_16_bit_tiff_big_endian_and_16_bit_colour_tiff_in_full(tmp_path):
    import tifffile

    a = twelve_bit()
    Image.frombytes("I;16B", a.shape[::-1], a.astype(">u2").tobytes()).save(tmp_path / "be.tif")
    assert np.array_equal(core.load_image(tmp_path / "be.tif"), a)
    rgb = np.dstack([a, a // 2, 4095 - a]).astype(np.uint16)
    tifffile.imwrite(tmp_path / "rgb16.tif", rgb, photometric="rgb", compression="zlib")
    img = core.load_image(tmp_path / "rgb16.tif")
    assert img.dtype == np.uint16 and np.array_equal(img, rgb)  # Pillow alone gives 8 bits (max 15)
    # the TIFF orientation tag is honoured on this path too (6: rotate 90 degrees clockwise)
    tifffile.imwrite(tmp_path / "rot.tif", rgb, photometric="rgb", extratags=[(274, "H", 1, 6, False)])
    assert np.array_equal(core.load_image(tmp_path / "rot.tif"), np.rot90(rgb, -1))


def test_alpha_is_composited_on_white(tmp_path):
    rgb = np.zeros((30, 40, 3), np.uint8)
    rgb[:, :20] = (200, 30, 30)
    alpha = np.full((30, 40), 255, np.uint8)
    alpha[:, 20:] = 0  # transparent right half hides black pixels
    alpha[:, 20:25] = 128
    Image.fromarray(np.dstack([rgb, alpha])).save(tmp_path / "a.png")
    img = core.load_image(tmp_path / "a.png")
    assert img.shape == (30, 40, 4)
    f = core.as_float_image(img)
    assert np.allclose(f[:, 30:], 1.0)  # white, not the black under alpha 0
    assert np.allclose(f[:, :20], rgb[:, :20] / 255.0)
    assert np.allclose(f[:, 22], (128 / 255.0) * 0 + (1 - 128 / 255.0))  # half transparent black
    flat = (f * 255).round().astype(np.uint8)
    s_alpha = core.segment(img, method="ncut", max_nodes=80)
    s_flat = core.segment(f, method="ncut", max_nodes=80)
    assert np.array_equal(s_alpha.labels, s_flat.labels)
    assert s_alpha.labels[0, 0] != s_alpha.labels[0, -1]
    assert np.array_equal(to_rgb8(img), flat)
    work, factor = working_image(img, 300)
    assert factor == 2 and np.allclose(work, f.reshape(15, 2, 20, 2, 3).mean((1, 3)))


@pytest.mark.parametrize("mode, shape, dtype", [
    ("1", (24, 32), np.uint8), ("L", (24, 32), np.uint8), ("LA", (24, 32, 2), np.uint8),
    ("P", (24, 32, 3), np.uint8), ("RGBA", (24, 32, 4), np.uint8),
    ("CMYK", (24, 32, 3), np.uint8), ("YCbCr", (24, 32, 3), np.uint8), ("HSV", (24, 32, 3), np.uint8),
    ("I;16", (24, 32), np.uint16), ("I", (24, 32), np.uint16), ("F", (24, 32), np.float64),
])
def test_every_mode_loads_and_segments(mode, shape, dtype, tmp_path, monkeypatch):
    """A dark-red left half and a light-blue right half, in every mode: loaded with the
    documented shape and type, and cut between the halves."""
    rgb = np.zeros((24, 32, 3), np.uint8)
    rgb[:, :16], rgb[:, 16:] = (120, 20, 20), (150, 200, 250)
    base = Image.fromarray(rgb)
    if mode in ("I;16", "I", "F"):
        im = base.convert("L").convert(mode)
    elif mode == "HSV":
        im = base.convert("HSV")
        # Pillow writes no HSV file: hand the image to the loader's conversion directly
        monkeypatch.setattr("PIL.Image.open", lambda f, *a, **k: im.copy())
    elif mode in ("1", "P"):  # no dithering: each half stays one colour
        im = base.convert(mode, dither=Image.Dither.NONE, palette=Image.Palette.ADAPTIVE, colors=4)
    else:
        im = base.convert(mode)
    path = tmp_path / ("x.png" if mode in ("1", "L", "LA", "P", "RGBA") else "x.tif")
    if mode != "HSV":
        im.save(path)
    else:
        path.write_bytes(b"placeholder")
    img = core.load_image(path)
    assert img.shape == shape and img.dtype == dtype
    seg = core.segment(img, method="ncut", max_nodes=40)
    assert seg.labels[:, :14].max() == seg.labels[:, :14].min() != seg.labels[:, 18:].min() == seg.labels[:, 18:].max()


def test_palette_with_a_transparent_colour_and_one_bit(tmp_path):
    p = Image.fromarray(np.repeat(np.arange(32, dtype=np.uint8)[None, :] // 16, 24, 0), "P")
    p.putpalette([0, 0, 0, 255, 0, 0] + [0] * 762)
    p.info["transparency"] = 0
    p.save(tmp_path / "t.png", transparency=0)
    img = core.load_image(tmp_path / "t.png")
    assert img.shape == (24, 32, 4) and img[0, 0, 3] == 0 and img[0, -1, 3] == 255
    assert np.allclose(core.as_float_image(img)[0, 0], 1.0)  # transparent -> white
    Image.fromarray(np.eye(24, 32, dtype=bool)).save(tmp_path / "b.png")
    b = core.load_image(tmp_path / "b.png")
    assert set(np.unique(b)) == {0, 255}


def test_int32_with_negative_values_and_16_bit_grey_png(tmp_path):
    a = (np.arange(24 * 32).reshape(24, 32) - 300).astype(np.int32)
    Image.fromarray(a, "I").save(tmp_path / "neg.tif")
    img = core.load_image(tmp_path / "neg.tif")
    assert img.dtype == np.float64 and img.min() == -300
    assert core.as_float_image(img).min() == 0 and core.as_float_image(img).max() == 1
    (tmp_path / "g16.png").write_bytes(png16(twelve_bit()))
    assert np.array_equal(core.load_image(tmp_path / "g16.png"), twelve_bit())


def test_mpo_gives_its_primary_image_and_non_ascii_paths_work(tmp_path):
    first = np.zeros((24, 32, 3), np.uint8)
    first[:, :, 0] = np.linspace(0, 255, 32)[None, :]  # a smooth ramp survives JPEG
    other = Image.fromarray(255 - first)
    path = tmp_path / "Fotos ñandú 写真" / "phone.mpo"
    path.parent.mkdir()
    Image.fromarray(first).save(path, format="MPO", save_all=True, append_images=[other], quality=95)
    with Image.open(path) as im:
        assert im.format == "MPO" and im.n_frames == 2
    img = core.load_image(path)
    assert img.shape == (24, 32, 3) and np.abs(img.astype(int) - first).mean() < 8


@pytest.mark.parametrize("mode", ["RGB", "RGBA"])
def test_an_rgb_file_is_read_without_copies(mode, tmp_path, monkeypatch):
    """A photo already in the mode segapp keeps is turned into an array without PIL's
    convert() or copy() (each a copy of the whole image: 48 MB for a 12 MP photo, which
    made the window's peak 90 MB higher at 4000x3000); the pixels are the file's, and an
    EXIF orientation is still applied (in place)."""
    rng = np.random.RandomState(0)
    a = rng.randint(0, 256, (20, 30, len(mode))).astype(np.uint8)
    plain, turned = tmp_path / "plain.png", tmp_path / "turned.png"
    Image.fromarray(a, mode).save(plain)
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise to show
    Image.fromarray(a, mode).save(turned, exif=exif)
    calls = []
    for name in ("convert", "copy"):
        original = getattr(Image.Image, name)
        monkeypatch.setattr(Image.Image, name, lambda self, *args, _o=original, _n=name, **kw:
                            calls.append(_n) or _o(self, *args, **kw))
    assert np.array_equal(core.load_image(plain), a)
    assert np.array_equal(core.load_image(turned), np.rot90(a, -1))
    assert calls == []
