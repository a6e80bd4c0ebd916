import atexit
import os
import shutil
import tempfile

_HOME = tempfile.mkdtemp(prefix="segapp-faults-home-")
atexit.register(shutil.rmtree, _HOME, ignore_errors=True)
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["XDG_CONFIG_HOME"] = os.path.join(_HOME, "config")  # QSettings and the autosave journals
os.environ["XDG_DATA_HOME"] = os.path.join(_HOME, "data")      # stay out of the user's home
