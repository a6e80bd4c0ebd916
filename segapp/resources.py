"""Where the project's own assets live."""

from pathlib import Path

ASSETS = Path(__file__).resolve().parent.parent / "assets"
DEMO_IMAGE = ASSETS / "demo.png"
