"""segapp's computation: constrained spectral clustering of images and of any data.

Never imports Qt. Public API::

    core.METHODS, core.REPRESENTATION_PARAMS, core.Block, core.Constraints, core.segment,
    core.Segmentation, core.prepare, core.Prepared, core.ConstrainedSpectralClustering, core.load_image,
    core.as_float_image, and the error and warning classes of :mod:`core.errors`

Layout: :mod:`core.graph` (nodes, affinities, node constraints), :mod:`core.spectral`
(normalisation, eigensolver, label assignment), :mod:`core.methods` (one module per paper),
:mod:`core.pipeline` (the step both front doors share), :mod:`core.segmentation`
(``segment``), :mod:`core.estimator`, :mod:`core.eval` (metrics, BSDS, simulated user,
baselines), :mod:`core.image`, :mod:`core.constraints`, :mod:`core.render`.
"""

from .constraints import Block, Constraints, Kind
from .errors import (ConstraintError, ContradictoryConstraintsWarning, ConvergenceError,
                     ConvergenceWarning, DisconnectedGraphWarning, FallbackWarning, InvalidImageError,
                     ParameterError, SegappError, SegappWarning)
from .estimator import ConstrainedSpectralClustering
from .pipeline import SHARED_PARAMS as REPRESENTATION_PARAMS
from .image import as_float_image, load_image
from .methods import METHODS
from .prepared import Prepared, prepare
from .segmentation import Segmentation, segment
from .suggestion import Suggestion, suggest

__all__ = [
    "METHODS", "REPRESENTATION_PARAMS", "Block", "Constraints", "Kind", "segment", "Segmentation", "prepare", "Prepared",
    "suggest", "Suggestion",
    "ConstrainedSpectralClustering", "load_image", "as_float_image",
    "SegappError", "InvalidImageError", "ConstraintError", "ParameterError", "ConvergenceError",
    "SegappWarning", "ContradictoryConstraintsWarning", "DisconnectedGraphWarning", "ConvergenceWarning",
    "FallbackWarning",
]
