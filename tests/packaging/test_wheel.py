"""A normal, non-editable install works: build the wheel, install it into a fresh venv, run it.

The wheel is built once from a copy of the project's sources (so no stale ``build/`` of the
checkout can leak into it) with pip's usual isolated build, as ``pip install .`` does. The
fresh venv gets only the wheel; its dependencies come from the running interpreter's
site-packages, named in a plain ``.pth`` line after the venv's own site-packages (the editable
install's import hook there is not run), so nothing is downloaded and ``segapp`` can only come
from the wheel, which the first check makes sure of.
"""

import os
import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
SOURCES = shutil.ignore_patterns(".git", ".venv*", "build", "dist", "*.egg-info", "__pycache__",
                                 ".pytest_cache", "tests", "bench")


def _run(cmd, **kw):
    done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=300, **kw)
    assert done.returncode == 0, f"{' '.join(map(str, cmd))} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(venv folder, environment for running its programs) with only the wheel installed."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=SOURCES)
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp / "dist", src])
    wheel, = (tmp / "dist").glob("segapp-*.whl")

    env_dir = tmp / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    own_site = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).stdout.strip())
    deps = [p for p in site.getsitepackages() + [site.getusersitepackages()] if Path(p).is_dir()]
    (own_site / "zz_test_dependencies.pth").write_text("\n".join(deps) + "\n")
    # pip comes from the dependencies' site-packages but installs into the fresh venv;
    # --ignore-installed: the editable segapp seen there is neither reused nor touched
    _run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--ignore-installed", wheel])

    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp / "config"),
               XDG_DATA_HOME=str(tmp / "data"), XDG_CACHE_HOME=str(tmp / "cache"))
    return env_dir, env


def test_wheel_carries_package_data_and_runs_segment_demo(installed, tmp_path):
    env_dir, env = installed
    where = _run([env_dir / "bin" / "python", "-c",
                  "import segapp, segapp.resources as r; from segapp import core; print(segapp.__file__); print(core.__file__);"
                  "print(r.DEMO_IMAGE); print(r.ICON)"], cwd=tmp_path, env=env).stdout.split()
    for path in where:
        assert Path(path).resolve().is_relative_to(env_dir.resolve()), f"{path} is not from the wheel"
        assert Path(path).is_file()

    _run([env_dir / "bin" / "segapp", "segment", "--demo"], cwd=tmp_path, env=env)
    mask = np.asarray(Image.open(tmp_path / "demo_labels.png"))
    assert mask.shape == (240, 360) and mask.dtype == np.uint8
    assert set(np.unique(mask)) == {0, 1}


def test_wheel_app_renders_its_window(installed, tmp_path):
    env_dir, env = installed
    shot = tmp_path / "window.png"
    _run([env_dir / "bin" / "segapp", "--screenshot", shot], cwd=tmp_path, env=env)
    img = np.asarray(Image.open(shot).convert("RGB"))
    assert img.shape[0] > 400 and img.shape[1] > 600
    assert img.reshape(-1, 3).std(axis=0).max() > 20  # a drawn window, not a blank surface


def test_wheel_installs_segapp_alone(installed, tmp_path):
    """The only top-level package is segapp (core/ installs as segapp.core), so no other
    package named ``core`` can collide with ours."""
    env_dir, env = installed
    out = _run([env_dir / "bin" / "python", "-c",
                "import importlib.util as u; print(u.find_spec('core') is None)"], cwd=tmp_path, env=env)
    assert out.stdout.strip() == "True"
    site_dir, = (env_dir / "lib").glob("python*/site-packages")
    tops = {p.name for p in site_dir.iterdir() if not p.name.endswith((".dist-info", ".pth"))
            and p.name != "__pycache__"}
    assert tops == {"segapp"}, tops


def test_every_module_folder_is_packaged():
    """pyproject.toml lists the packages by hand (core/ is mapped to segapp.core): a new folder
    of modules must be listed, or the wheel would lack it."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(("segapp",) + p.parent.relative_to(ROOT).parts) if top == "core"
             else ".".join(p.parent.relative_to(ROOT).parts)
             for top in ("core", "segapp") for p in (ROOT / top).rglob("__init__.py")}
    assert listed == found, listed ^ found
