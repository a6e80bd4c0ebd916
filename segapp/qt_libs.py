"""Which system libraries Qt's X11 platform plugin cannot find, and which packages bring them.

PySide6's wheels carry Qt, but the xcb platform plugin (``PySide6/Qt/plugins/platforms/
libqxcb.so``) links against X libraries of the system. When one is missing Qt aborts the
process (exit 134) with a hint that names ``libxcb-cursor0`` whichever library is missing.
:func:`check_xcb` asks the dynamic loader (``ldd``) before Qt starts and turns a missing
library into one :class:`core.SegappError` naming the libraries and the command that installs
them. The mapping covers the libraries of the pinned PySide6 (``readelf -d``/``ldd``, mapped
with ``dpkg -S`` on Debian 12; Ubuntu 22.04 and later use the same package names).
"""

from __future__ import annotations

import ctypes.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

# soname prefix -> Debian/Ubuntu package
PACKAGES = {
    "libxcb.so": "libxcb1", "libX11-xcb.so": "libx11-xcb1", "libX11.so": "libx11-6",
    "libxcb-cursor.so": "libxcb-cursor0", "libxcb-icccm.so": "libxcb-icccm4",
    "libxcb-image.so": "libxcb-image0", "libxcb-keysyms.so": "libxcb-keysyms1",
    "libxcb-randr.so": "libxcb-randr0", "libxcb-render-util.so": "libxcb-render-util0",
    "libxcb-render.so": "libxcb-render0", "libxcb-shape.so": "libxcb-shape0",
    "libxcb-shm.so": "libxcb-shm0", "libxcb-sync.so": "libxcb-sync1",
    "libxcb-xfixes.so": "libxcb-xfixes0", "libxcb-xkb.so": "libxcb-xkb1",
    "libxcb-util.so": "libxcb-util1", "libxkbcommon-x11.so": "libxkbcommon-x11-0",
    "libxkbcommon.so": "libxkbcommon0", "libEGL.so": "libegl1", "libGL.so": "libgl1",
    "libGLX.so": "libglx0", "libOpenGL.so": "libopengl0", "libfontconfig.so": "libfontconfig1",
    "libfreetype.so": "libfreetype6", "libdbus-1.so": "libdbus-1-3", "libglib-2.0.so": "libglib2.0-0",
}
# Loaded by Qt at run time (dlopen), so ldd does not list it: Qt 6.5+ needs it for xcb.
DLOPENED = {"libxcb-cursor.so.0": "xcb-cursor"}


def package_of(soname: str) -> str | None:
    """The Debian/Ubuntu package that ships ``soname`` (``None`` when not in the table)."""
    for prefix in sorted(PACKAGES, key=len, reverse=True):
        if soname.startswith(prefix):
            return PACKAGES[prefix]
    return None


def xcb_plugin() -> Path | None:
    """PySide6's xcb platform plugin, or ``None`` when this PySide6 has none."""
    try:
        import PySide6
    except ImportError:
        return None
    path = Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    return path if path.is_file() else None


def _ldd(path: Path) -> str:
    exe = shutil.which("ldd")
    if exe is None:
        return ""
    try:
        return subprocess.run([exe, str(path)], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def missing_libraries(plugin: Path | None = None, ldd_output: str | None = None) -> list[str]:
    """Sonames the xcb plugin needs that the loader cannot find (sorted, distinct).

    Parameters
    ----------
    plugin : Path, optional
        Default: :func:`xcb_plugin`.
    ldd_output : str, optional
        ``ldd``'s output for the plugin (default: run ``ldd``); lines ``NAME => not found``
        are the missing ones.
    """
    if ldd_output is None:
        plugin = plugin or xcb_plugin()
        ldd_output = _ldd(plugin) if plugin is not None else ""
    missing = {line.split("=>")[0].strip() for line in ldd_output.splitlines()
               if "=> not found" in line}
    for soname, name in DLOPENED.items():
        if ldd_output and soname not in ldd_output and ctypes.util.find_library(name) is None:
            missing.add(soname)
    return sorted(missing)


def install_hint(missing: list[str]) -> str:
    """One message: what is missing and the one command that installs it."""
    pkgs = sorted({package_of(s) for s in missing} - {None})
    unknown = [s for s in missing if package_of(s) is None]
    text = (f"Qt's X11 platform plugin cannot load: the system library "
            f"{'files' if len(missing) > 1 else 'file'} {', '.join(missing)} "
            f"{'are' if len(missing) > 1 else 'is'} missing.")
    if pkgs:
        text += f" On Debian or Ubuntu install them with: sudo apt-get install -y {' '.join(pkgs)}"
    if unknown:
        text += f" (no package known for {', '.join(unknown)}: ask your distribution's package search)"
    return text + ". The window is not needed for 'segapp segment' or 'segapp --screenshot OUT.png'."


def uses_xcb(environ=os.environ, platform: str = sys.platform) -> bool:
    """Qt will pick its xcb plugin: Linux, an X display, no Wayland, no other platform chosen."""
    if not platform.startswith("linux"):
        return False
    chosen = environ.get("QT_QPA_PLATFORM", "")
    if chosen:
        return chosen.split(":")[0] == "xcb"
    return bool(environ.get("DISPLAY")) and not environ.get("WAYLAND_DISPLAY")


def check_xcb(environ=os.environ) -> None:
    """Raise :class:`core.SegappError` naming the missing libraries when Qt would abort.

    Does nothing unless :func:`uses_xcb`; ``ldd`` missing or failing is not an error (Qt
    then says what it says).
    """
    if not uses_xcb(environ):
        return
    missing = missing_libraries()
    if missing:
        from segapp import core

        raise core.SegappError(install_hint(missing))
