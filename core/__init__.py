"""segapp's computation: constrained spectral clustering of images and of any data.

Never imports Qt. Public API::

    core.METHODS, core.Block, core.Constraints, core.segment, core.Segmentation,
    core.ConstrainedSpectralClustering, core.load_image
"""

from .constraints import Block, Constraints
from .errors import (ConstraintError, ContradictoryConstraintsWarning, ConvergenceError,
                     ConvergenceWarning, DisconnectedGraphWarning, InvalidImageError, ParameterError,
                     SegappError, SegappWarning)
from .estimator import ConstrainedSpectralClustering
from .image import as_float_image, load_image
from .methods import METHODS
from .representation import REPRESENTATION_PARAMS
from .segment import Segmentation, segment

__all__ = [
    "METHODS", "REPRESENTATION_PARAMS", "Block", "Constraints", "segment", "Segmentation",
    "ConstrainedSpectralClustering", "load_image", "as_float_image",
    "SegappError", "InvalidImageError", "ConstraintError", "ParameterError", "ConvergenceError",
    "SegappWarning", "ContradictoryConstraintsWarning", "DisconnectedGraphWarning", "ConvergenceWarning",
]
