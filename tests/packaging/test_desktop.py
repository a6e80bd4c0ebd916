"""The Linux desktop entry and the script that installs it with the icon."""

import configparser
import mimetypes
import os
import shutil
import subprocess

import pytest

from segapp.core.image import SUPPORTED_SUFFIXES
from segapp.resources import ICON_SIZES
from tests.conftest import ROOT

PACKAGING = ROOT / "packaging"


def _entry(path):
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(path, encoding="utf-8")
    return parser["Desktop Entry"]


def test_desktop_entry_opens_every_image_type_the_app_reads():
    entry = _entry(PACKAGING / "segapp.desktop")
    assert entry["Type"] == "Application" and entry["Icon"] == "segapp"
    assert entry["Exec"].split()[-1] == "%f"  # the file manager passes one image
    assert entry["StartupWMClass"] == "segapp"  # the X window class (segapp.app)
    offered = set(entry["MimeType"].rstrip(";").split(";"))
    table = mimetypes.MimeTypes()  # Python's own table, not the system's files
    for suffix in SUPPORTED_SUFFIXES:
        assert table.guess_type(f"x{suffix}")[0] in offered, suffix


@pytest.mark.skipif(shutil.which("bash") is None, reason="the install script is a bash script")
def test_install_desktop_puts_entry_and_every_icon_size_in_place(tmp_path):
    exe = tmp_path / "bin" / "segapp"
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "share")}
    script = PACKAGING / "install-desktop.sh"
    subprocess.run(["bash", str(script), str(exe)], env=env, check=True, capture_output=True)

    entry = _entry(tmp_path / "share" / "applications" / "segapp.desktop")
    assert entry["Exec"] == f'"{exe}" %f' and entry["TryExec"] == str(exe)
    icons = tmp_path / "share" / "icons" / "hicolor"
    assert sorted(int(p.parent.parent.name.split("x")[0]) for p in icons.glob("*/apps/segapp.png")) \
        == sorted(ICON_SIZES)

    subprocess.run(["bash", str(script), "--remove"], env=env, check=True, capture_output=True)
    assert not (tmp_path / "share" / "applications" / "segapp.desktop").exists()
    assert not list(icons.glob("*/apps/segapp.png"))
