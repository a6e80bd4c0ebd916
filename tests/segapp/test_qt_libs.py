"""A missing X library is said in one message naming its package (no Qt abort)."""

import pytest

from segapp import core
from segapp import qt_libs

LDD_STOCK_DEBIAN = """\
\tlinux-vdso.so.1 (0x00007ffd)
\tlibQt6XcbQpa.so.6 => /venv/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007f)
\tlibxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007f)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb.so.1 => /lib/x86_64-linux-gnu/libxcb.so.1 (0x00007f)
\tlibxcb-icccm.so.4 => not found
"""


def test_missing_libraries_read_from_the_loader():
    assert qt_libs.missing_libraries(ldd_output=LDD_STOCK_DEBIAN) == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]


def test_hint_names_packages_and_the_command():
    text = qt_libs.install_hint(["libxcb-icccm.so.4", "libxcb-keysyms.so.1"])
    assert "sudo apt-get install -y libxcb-icccm4 libxcb-keysyms1" in text
    assert "libxcb-icccm.so.4" in text and "libxcb-cursor0" not in text


def test_unknown_library_said_as_such():
    text = qt_libs.install_hint(["libfoo.so.3"])
    assert "libfoo.so.3" in text and "no package known" in text


@pytest.mark.parametrize("env, expected", [
    ({"DISPLAY": ":0"}, True),
    ({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}, False),
    ({"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"}, False),
    ({"QT_QPA_PLATFORM": "xcb"}, True),
    ({}, False),
])
def test_only_checked_when_qt_takes_xcb(env, expected):
    assert qt_libs.uses_xcb(env, "linux") is expected
    assert qt_libs.uses_xcb(env, "win32") is False


def test_check_raises_segapp_error(monkeypatch):
    monkeypatch.setattr(qt_libs, "missing_libraries", lambda: ["libxcb-keysyms.so.1"])
    with pytest.raises(core.SegappError, match="libxcb-keysyms1"):
        qt_libs.check_xcb({"DISPLAY": ":0"})
    qt_libs.check_xcb({"QT_QPA_PLATFORM": "offscreen"})  # offscreen needs none of them


def test_cli_says_it_in_one_line(monkeypatch, capsys):
    from segapp.cli import main

    monkeypatch.setattr(qt_libs, "missing_libraries", lambda: ["libxcb-icccm.so.4"])
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    code = main([])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "apt-get install -y libxcb-icccm4" in err[0]
