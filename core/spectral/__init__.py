"""The spectral toolkit every method shares: graph normalisation (:mod:`.linalg`), one
eigensolver entry (:mod:`.eigen`), labels from an embedding (:mod:`.assign`, Yu & Shi in
:mod:`.discretize`) and NJW spectral clustering (:mod:`.cluster`)."""

from .assign import RULES, assign_labels, kmeans_labels
from .cluster import SpectralResult, njw
from .eigen import DENSE_BELOW, top_eigh
from .linalg import (MIN_DEGREE, check_connected, degrees, fix_signs, inv_sqrt_degrees, n_components,
                     normalize, row_normalize)

__all__ = ["RULES", "assign_labels", "kmeans_labels", "SpectralResult", "njw", "DENSE_BELOW", "top_eigh",
           "MIN_DEGREE", "check_connected", "degrees", "fix_signs", "inv_sqrt_degrees", "n_components",
           "normalize", "row_normalize"]
