"""``core.segment``: one call from an image and its constraints to a label image."""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.utils import check_random_state

from .affinity import gaussian_affinity
from .constraints import Constraints
from .errors import ContradictoryConstraintsWarning, ParameterError, SegappError
from .image import as_float_image
from .methods import METHODS
from .node_constraints import map_constraints, warn_contradictions
from .params import resolve
from .representation import REPRESENTATION_PARAMS, Representation, build_representation


@dataclass
class Segmentation:
    """The result of :func:`segment`.

    Attributes
    ----------
    labels : ndarray, shape (H, W), int32
        Segment index 0..n_segments-1 of every pixel of the input image.
    eigenvectors : ndarray, shape (H, W, m), float32, m >= 3
        The leading non-trivial eigenvectors the method clustered (csp: ``u*`` first),
        painted at full size.
    eigenvalues : ndarray, shape (m,)
    params : dict
        Every parameter used, defaults resolved (e.g. csp's beta by eq. 17).
    seconds : float
        Wall time of the call.
    n_nodes : int
    method : str
    warnings : list of str
        Messages of the segapp warnings raised during the call (also emitted as warnings).
    node_labels : ndarray, shape (n,)
    representation : Representation
    info : dict
        Method diagnostics (csp: n_feasible, lambda_max, constraint_satisfaction; ssap:
        preference, rounds, n_violated).
    """

    labels: np.ndarray
    eigenvectors: np.ndarray
    eigenvalues: np.ndarray
    params: dict
    seconds: float
    n_nodes: int
    method: str
    warnings: list = field(default_factory=list)
    node_labels: np.ndarray | None = None
    representation: Representation | None = None
    info: dict = field(default_factory=dict)


def check_method(method: str):
    if method not in METHODS:
        raise ParameterError(f"unknown method {method!r}; valid methods: {', '.join(METHODS)}")
    return METHODS[method]


def split_params(method: str, params: dict) -> tuple[dict, dict]:
    """Validate ``params`` for ``method``: (representation params, method params), defaults filled."""
    spec = check_method(method)
    rep_names = {p.name for p in REPRESENTATION_PARAMS}
    rep_given = {k: v for k, v in params.items() if k in rep_names}
    meth_given = {k: v for k, v in params.items() if k not in rep_names}
    names = sorted(rep_names | {p.name for p in spec.params} | {"random_state"})
    for k in meth_given:
        if k not in {p.name for p in spec.params}:
            raise ParameterError(f"unknown parameter {k!r} for method {method!r}; valid parameters: "
                                 f"{', '.join(n for n in names if n != 'random_state')}")
    return resolve(REPRESENTATION_PARAMS, rep_given, "the representation"), \
        resolve(spec.params, meth_given, f"method {method!r}")


def segment(image, constraints: Constraints | None = None, method: str = "csp", n_segments: int = 2,
            random_state=0, **params) -> Segmentation:
    """Segment ``image`` into ``n_segments`` with pairwise constraints.

    Parameters
    ----------
    image : ndarray, shape (H, W), (H, W, 3) or (H, W, 4)
        Grey or colour, any integer or float dtype.
    constraints : Constraints, optional
        Links and blocks in full-image pixel coordinates.
    method : str
        A key of :data:`core.METHODS`.
    n_segments : int
        At least 2 and at most the number of graph nodes.
    random_state : int, RandomState or None
        Seeds k-means and block-pair subsampling (converted once).
    **params
        Representation parameters (``representation``, ``max_nodes``, ``sigma_position``,
        ``sigma_intensity``, ``stroke_radius``, ``max_pairs``) and the method's parameters.

    Returns
    -------
    Segmentation

    Raises
    ------
    InvalidImageError, ConstraintError, ParameterError, ConvergenceError
        With a message naming the problem.

    Warns
    -----
    ContradictoryConstraintsWarning
        A pair is both must- and cannot-linked (directly or through must-links).
    DisconnectedGraphWarning, ConvergenceWarning
    """
    t0 = time.perf_counter()
    spec = check_method(method)
    if isinstance(n_segments, bool) or not isinstance(n_segments, (int, np.integer)) or n_segments < 2:
        raise ParameterError(f"n_segments must be an integer >= 2, got {n_segments!r}")
    n_segments = int(n_segments)
    rep_p, meth_p = split_params(method, params)
    img = as_float_image(np.asarray(image))
    if constraints is None:
        constraints = Constraints()
    elif not isinstance(constraints, Constraints):
        raise ParameterError(f"constraints must be a core.Constraints, got {type(constraints).__name__}")
    constraints.validate(img.shape[:2])
    rng = check_random_state(random_state)
    caught: list[str] = []
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        for msg in constraints.contradictions():
            warnings.warn("contradictory constraints: " + msg, ContradictoryConstraintsWarning, stacklevel=2)
        max_nodes = rep_p["max_nodes"]
        if "ap_nodes" in meth_p:
            max_nodes = min(max_nodes, meth_p["ap_nodes"])
        rep = build_representation(img, rep_p["representation"], max_nodes)
        if n_segments > rep.n_nodes:
            raise ParameterError(f"n_segments = {n_segments} exceeds the {rep.n_nodes} graph nodes; "
                                 f"use at most {rep.n_nodes} or raise max_nodes")
        feats = rep.features(rep_p["sigma_position"], rep_p["sigma_intensity"])
        K = gaussian_affinity(feats)
        nc = map_constraints(constraints, rep, stroke_radius=rep_p["stroke_radius"],
                             sigma_intensity=rep_p["sigma_intensity"], max_pairs=rep_p["max_pairs"], rng=rng)
        if method != "ncut" and not constraints.contradictions():
            warn_contradictions(nc)
        try:
            with np.errstate(all="ignore"):
                res = spec.fit(K, nc, n_segments, rng, features=feats, **meth_p)
        except SegappError:
            raise
        except (np.linalg.LinAlgError, ValueError, ArithmeticError) as e:
            from .errors import ConvergenceError

            raise ConvergenceError(f"{method}: numerical failure ({type(e).__name__}: {e})") from None
    for w in rec:
        if issubclass(w.category, Warning):
            caught.append(str(w.message))
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    labels = rep.to_pixels(res.labels).astype(np.int32)
    emb = res.embedding
    if emb.shape[1] < 3:
        emb = np.hstack([emb, np.zeros((emb.shape[0], 3 - emb.shape[1]))])
        ev = np.concatenate([res.eigenvalues, np.full(3 - len(res.eigenvalues), np.nan)])
    else:
        ev = res.eigenvalues
    eig = rep.to_pixels(emb.astype(np.float32))
    used = {"method": method, "n_segments": n_segments, "random_state": random_state, **rep_p, **meth_p}
    used.update({k: v for k, v in res.info.items() if k in meth_p})
    used["n_nodes"] = rep.n_nodes
    return Segmentation(labels, eig, np.asarray(ev, float), used, time.perf_counter() - t0, rep.n_nodes,
                        method, caught, res.labels, rep, res.info)
