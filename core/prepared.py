"""``core.prepare``: an image made ready once, re-segmented per stroke at the cost of the stroke.

:func:`core.segment` accepts a :class:`Prepared` in place of the image array. The image is
then checked and hashed once (not per call), its representations stay alive as long as the
:class:`Prepared` does, and each representation's :class:`~core.graph.cache.GraphCache`
holds the affinity, its normalisation and the methods' stroke-independent factorisations.
The labels are the ones an uncached call computes (tested for every method).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from .graph.representation import Representation, build_representation, image_digest
from .graph_setup import graph_for
from .image import check_image

KEEP_REPRESENTATIONS = 4  # node settings held per image (ssap's smaller cap is one of them)


class Prepared:
    """An image checked and hashed once, with the graphs built on it.

    Parameters
    ----------
    image : ndarray, shape (H, W), (H, W, 3) or (H, W, 4)
        Not copied: do not change it afterwards.

    Attributes
    ----------
    image : ndarray
    digest : tuple
        The image's content hash, shape and dtype (the caches' key).
    """

    def __init__(self, image):
        img = np.asarray(image)
        check_image(img)
        self.image = img
        self.digest = image_digest(img)
        self._reps: OrderedDict[tuple, Representation] = OrderedDict()

    @property
    def shape(self) -> tuple:
        return tuple(self.image.shape[:2])

    def representation(self, representation: str, max_nodes: int, work_pixels: int,
                       edge_sigma: float = 0.0) -> Representation:
        """The nodes for these settings, built on first use and then kept."""
        key = (representation, int(max_nodes), int(work_pixels), float(edge_sigma))
        rep = self._reps.get(key)
        if rep is None:
            rep = build_representation(self.image, representation, max_nodes, work_pixels, edge_sigma,
                                       digest=self.digest)
            self._reps[key] = rep
            while len(self._reps) > KEEP_REPRESENTATIONS:
                self._reps.popitem(last=False)
        self._reps.move_to_end(key)
        return rep

    def representations(self) -> list:
        """The representations built so far (least recently used first)."""
        return list(self._reps.values())

    def __repr__(self) -> str:
        h, w = self.shape
        return f"Prepared({w}x{h} image, {len(self._reps)} representation(s))"


def prepare(image, method: str = "csp", **params) -> Prepared:
    """Check ``image`` and build what every stroke reuses: the nodes and the affinity.

    Parameters
    ----------
    image : ndarray or Prepared
    method : str
        The method the graph is built for (its node cap and graph form).
    **params
        Graph and method parameters, as :func:`core.segment` takes them.

    Returns
    -------
    Prepared
        Pass it to :func:`core.segment` in place of the image.

    Raises
    ------
    InvalidImageError, ParameterError
    """
    prep = image if isinstance(image, Prepared) else Prepared(image)
    graph_for(prep, method, params)
    return prep
