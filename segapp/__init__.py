"""segapp: the desktop app and command line for interactive constrained segmentation."""

__version__ = "0.1.0"
