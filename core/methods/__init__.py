"""One module per method, each exposing ``fit(K, nc, n_clusters, rng, features=None, **params)``
and a :class:`~core.params.MethodSpec` named ``SPEC``. :data:`METHODS` is the registry."""

from __future__ import annotations

from . import csp, e2cp, gp_propagation, ncut, rom, spectral_learning, ssap

METHODS = {m.SPEC.name: m.SPEC for m in (ncut, spectral_learning, gp_propagation, csp, e2cp, rom, ssap)}

__all__ = ["METHODS"]
