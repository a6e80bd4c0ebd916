#!/usr/bin/env bash
# Build segapp as a one-folder app in dist/segapp/ and smoke-test the frozen program.
#
#   bash packaging/build.sh              # PYTHON=python3.12 bash packaging/build.sh for another
#
# 1. a build venv in build/venv (made once, reused), with segapp installed from this checkout
#    (a normal, non-editable install) and its [package] extra: PyInstaller, build-time only;
# 2. PyInstaller freezes packaging/segapp.spec into dist/segapp/ (work files in build/);
# 3. packaging/smoke_test.py runs the frozen app offscreen: --screenshot must write a PNG of
#    the window, every method must segment the demo image, evaluate must write its CSV.
# The bundle runs without Python; on Linux it needs the Qt system libraries named in the
# README ("System packages"). Run the app: dist/segapp/segapp [IMAGE].
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
VENV=build/venv
fail() { echo; echo "BUILD FAILED: $*" >&2; exit 1; }

start=$(date +%s)
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV" || fail "cannot make a venv with $PYTHON"
rm -rf build/lib build/bdist.*  # setuptools' in-tree build folders: no stale module in the bundle
"$VENV/bin/python" -m pip install -q --upgrade '.[package]' || fail "pip install '.[package]'"
"$VENV/bin/python" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath dist --workpath build/pyinstaller packaging/segapp.spec || fail "PyInstaller"
built=$(date +%s)
echo "built dist/segapp in $((built - start)) s: $(du -sh dist/segapp | cut -f1)"

"$VENV/bin/python" packaging/smoke_test.py dist/segapp/segapp || fail "the frozen app's smoke test (above)"
echo "smoke test: $(($(date +%s) - built)) s"
