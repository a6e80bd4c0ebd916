"""Typed messages between the window and the worker process (numpy only, no Qt).

Per stroke only node-level arrays cross the process boundary; the node map of a
representation crosses once (the window caches it by ``key``) and the views paint through
it at working resolution.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from segapp.core.constraints import Kind


@dataclass(frozen=True)
class NodeMap:
    """The node of every working pixel of one representation.

    Attributes
    ----------
    key : str
        Digest of the map, factor and shape; results name the map they refer to by it.
    node_map : ndarray, shape (h, w), int32
        Working pixel (i, j) covers the full-image pixels ``[i f, (i + 1) f) x [j f, (j + 1) f)``.
    factor : int
        ``f`` (1: the working copy is the image itself).
    shape : tuple (H, W)
        The full image's size.
    """

    key: str
    node_map: np.ndarray
    factor: int
    shape: tuple

    @property
    def extent(self) -> tuple[int, int]:
        """(height, width) in full-image pixels covered by the working pixels (>= ``shape``)."""
        h, w = self.node_map.shape
        return h * self.factor, w * self.factor

    def thumbnail(self, max_side: int) -> np.ndarray:
        """Every s-th row and column of ``node_map`` so that no side exceeds ``max_side``."""
        s = max(1, -(-max(self.node_map.shape) // max_side))
        return self.node_map[::s, ::s]

    def full_size(self, node_values: np.ndarray) -> np.ndarray:
        """Node values (n,) painted on every full-image pixel, shape (H, W)."""
        v = np.asarray(node_values)[self.node_map]
        f = self.factor
        if f > 1:
            v = np.repeat(np.repeat(v, f, axis=0), f, axis=1)
        return v[: self.shape[0], : self.shape[1]]


@dataclass(frozen=True)
class SegmentRequest:
    """One re-segmentation: the constraints as validated items, settings the user changed.

    Attributes
    ----------
    rid : int
        Request id; the window shows a result only if its id is the newest.
    image_token : int
        Which image (sent to the worker once, under this token).
    must_link, cannot_link : tuple of (r1, c1, r2, c2, weight)
    blocks : tuple of core.Block
    method : str
    n_segments : int
    params : dict
        Representation and method parameters set by the user (defaults omitted).
    have_maps : tuple of str
        Keys of the node maps the window already holds (the worker sends a map otherwise).
    order : dict or None
        Creation sequence numbers of the items (:attr:`core.Constraints.order`); None: kind order.
    previous : int or None
        Id of the result on screen when the edit was made: the worker passes it to
        ``core.segment(previous=...)`` so earlier strokes keep their segments (None, or a
        result no longer kept: the call stands alone).
    suggest : bool
        The window asks for the suggested next stroke once the result is on its way
        (``Op.SUGGEST``, a call of its own: the result is not kept waiting for it); a preview
        does without it.
    """

    rid: int
    image_token: int
    must_link: tuple
    cannot_link: tuple
    blocks: tuple
    method: str
    n_segments: int
    params: dict
    have_maps: tuple = ()
    order: dict | None = None
    previous: int | None = None
    suggest: bool = True


@dataclass(frozen=True)
class SegmentResult:
    """What the views show of one segmentation; its arrays are read-only in the window.

    Attributes
    ----------
    rid : int
    method : str
    n_segments : int
    node_labels : ndarray, shape (n,)
    node_embedding : ndarray, shape (n, m)
    eigenvalues : ndarray, shape (m,)
        NaN for missing vectors.
    honoured : dict of str to ndarray of bool
        ``'must_link'`` (p,), ``'cannot_link'`` (q,), ``'blocks'`` (b,): whether each of the
        request's constraints holds in the result.
    warnings : tuple of str
    info : dict
        Method diagnostics.
    params : dict
        Every parameter used, defaults resolved.
    seconds : float
        Time of ``core.segment`` in the worker.
    n_nodes : int
        Nodes of the graph the method ran on (the node arrays are on its nodes, split where
        strokes meet and cut by the pixel refinement: ``len(node_labels)`` of them).
    map_key : str
        Key of the :class:`NodeMap` the node arrays refer to.
    node_map : NodeMap or None
        As sent by the worker: the map of ``base_key``, only when the window lacked it. The
        window's runner replaces it by the map of ``map_key`` (from its cache, cut by
        ``refine``) before any view sees the result.
    ari : float or None
        Adjusted Rand index against the ground truth the worker holds, if any.
    ari_token : int or None
        The token that ground truth was sent under (the window may have chosen another since).
    base_key : str
        Key of the map the pixel refinement started from (``map_key`` when it changed nothing).
    refine : tuple or None
        ``(base_labels, changed, changed_labels)``: the pixel refinement's result
        (:func:`core.pixel_refinement.cut_nodes` rebuilds the map of ``map_key`` from the
        map of ``base_key`` and these); None when it changed no pixel.
    suggestion : tuple or None
        Where the next stroke would help most (:func:`core.suggest`): ``(point,
        segment, anchors)``, full-image ``(row, col)`` pixels (``anchors`` per segment, None
        for an empty one); None when every node is certain, and until the window's own
        ``Op.SUGGEST`` call for this result answers (the session model then holds a copy with it,
        :meth:`~segapp.gui.session.SessionModel.set_suggestion`).
    """

    rid: int
    method: str
    n_segments: int
    node_labels: np.ndarray
    node_embedding: np.ndarray
    eigenvalues: np.ndarray
    honoured: dict
    warnings: tuple
    info: dict
    params: dict
    seconds: float
    n_nodes: int
    map_key: str
    node_map: NodeMap | None = None
    ari: float | None = None
    ari_token: int | None = None
    base_key: str = ""
    refine: tuple | None = None
    suggestion: tuple | None = None

    def not_honoured(self) -> list[tuple[str, int]]:
        """(kind, index) of every constraint the result does not honour, in kind order."""
        return [(kind, int(i)) for kind in (Kind.MUST_LINK, Kind.CANNOT_LINK, Kind.BLOCK)
                for i in np.flatnonzero(~np.asarray(self.honoured.get(kind, ()), bool))]

    def freeze(self) -> "SegmentResult":
        """Make every array read-only (views never mutate a result); returns ``self``."""
        arrays = [self.node_labels, self.node_embedding, self.eigenvalues, *self.honoured.values()]
        if self.node_map is not None:
            arrays.append(self.node_map.node_map)
        for a in arrays:
            if isinstance(a, np.ndarray):
                a.flags.writeable = False
        return self
