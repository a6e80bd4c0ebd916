"""The graph a method runs on, for a given image and parameters: parameters split and
validated, the affinity and the boundary graph built once per representation (its cache).
Shared by :func:`core.segment` and :func:`core.prepare`."""

from __future__ import annotations

from .errors import ParameterError
from .graph.affinity import affinity_key, boundary_affinity, node_affinity, regularised
from .graph.representation import Representation
from .params import resolve
from .pipeline import SHARED_PARAMS, check_method, method_params, node_cap


def split_params(method: str, params: dict) -> tuple[dict, dict]:
    """Validate ``params`` for ``method``: (representation params, method params), defaults filled.

    Raises
    ------
    ParameterError
        For an unknown name (listing every valid one) or a bad value.
    """
    spec = check_method(method)
    rep_names = {p.name for p in SHARED_PARAMS}
    meth_names = {p.name for p in spec.params}
    unknown = sorted(set(params) - rep_names - meth_names)
    if unknown:
        valid = ", ".join(sorted(rep_names | meth_names))
        raise ParameterError(f"unknown parameter {unknown[0]!r} for method {method!r}; valid parameters: {valid}")
    rep_p = resolve(SHARED_PARAMS, {k: v for k, v in params.items() if k in rep_names}, "the representation")
    return rep_p, method_params(spec, {k: v for k, v in params.items() if k in meth_names})


def graph_of(rep: Representation, rep_p: dict, spec):
    """The graph a method runs on, from the representation's cache (built on first use).

    Returns
    -------
    K : ndarray, shape (n, n)
        The method's affinity (:func:`~core.graph.affinity.node_affinity`), read-only.
    G : sparse matrix or None
        The boundary graph the constrained rounding walks on (only with ``rounding_prior``).
    cache : ScopedCache
        The representation's cache seen through the affinity's key, for the method's own
        stroke-independent factorisations.
    """
    tau = affinity_regularisation(rep_p, spec)
    raw = affinity_key(rep_p, spec.graph)
    K = rep.cache.get(("affinity",) + raw, lambda: node_affinity(rep, rep_p, spec.graph))
    key = raw
    if tau > 0:  # built from the affinity as built, which ssap shares (the compare view runs both)
        key = raw + (("regularisation", tau),)
        K = rep.cache.get(("affinity-regularised",) + key, lambda: regularised(K, tau))
    G = None
    if rep_p["rounding"] == "constrained" and rep_p["rounding_prior"] > 0:
        G = boundary_graph(rep, rep_p)
    return K, G, rep.cache.scope(*key)


def affinity_regularisation(rep_p: dict, spec) -> float:
    """The ``regularisation`` the method's affinity takes
    (:func:`~core.graph.affinity.regularised`): the contour affinity's, for the methods that
    take it (``spec.regularised``), else 0."""
    if rep_p["affinity"] != "contour" or not spec.regularised:
        return 0.0
    return float(rep_p["regularisation"])


def boundary_graph(rep: Representation, rep_p: dict):
    """The boundary graph the constrained rounding walks on, kept in ``rep``'s cache."""
    return rep.cache.get(("boundary-graph", rep_p["sigma_intensity"], rep_p["sigma_boundary"]),
                         lambda: boundary_affinity(rep, rep_p["sigma_intensity"], rep_p["sigma_boundary"]))


def graph_for(prep, method: str, params: dict) -> Representation:
    """Build (or find) the representation and affinity of ``prep`` (a :class:`~core.prepared.Prepared`)
    for ``method`` and ``params``."""
    spec = check_method(method)
    rep_p, meth_p = split_params(method, params)
    rep = prep.representation(rep_p["representation"], node_cap(spec, meth_p, rep_p["max_nodes"]),
                              rep_p["work_pixels"], rep_p["edge_sigma"])
    graph_of(rep, rep_p, spec)
    if rep_p["rounding_texture"] > 0:  # the texture model's features, before the first stroke
        from .constraint_step.texture import cached_pixel_texture

        cached_pixel_texture(rep)
    return rep
