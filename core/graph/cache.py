"""What does not change between strokes, computed once per image and settings.

A stroke changes only the constraints; the affinity, its normalisation and each method's
stroke-independent factorisations (csp's eigendecomposition of L_bar, e2cp's k-NN graph and LU factor,
rom's eigendecomposition, the unconstrained spectrum, ssap's unconstrained affinity
propagation) depend on the graph alone. Each :class:`~core.graph.representation.Representation`
carries a :class:`GraphCache` for them, keyed by everything they depend on (the graph
parameters and the method's own), so a cached result is the one a cold call computes.

Three entries depend on the strokes: gp-propagation's last propagated kernel ``K_bar``, which
the next stroke updates with its own links only
(:func:`~core.methods.gp_propagation.posterior`), and csp's ``U_1^T Q_bar U_1`` and e2cp's
propagated constraints ``F*``, which the next stroke updates with the rows it changed
(:func:`~core.spectral.sandwich.sandwich`). Each equals the cold result to rounding
(about 1e-14), not bit for bit: where the graph falls apart into more components than
segments, the eigenvectors of that repeated eigenvalue, and the labels read from them, are
any basis rounding picks, cold or warm.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from typing import Callable

import numpy as np

MAX_PER_KIND = 8  # entries of one kind per representation (e.g. affinities of 8 settings)
KIND_LIMITS = {"ssap-search": 64, "node-split": 512, "link-nodes": 4096}  # small entries: one per AP round, per split node, per link


class GraphCache:
    """Least-recently-used store of stroke-independent results of one graph.

    Each kind of entry (the first element of its key) keeps at most ``max_per_kind`` values
    (:data:`KIND_LIMITS` for some), the least recently used going first, so that many small
    entries of one kind never push out the affinity.

    Attributes
    ----------
    builds : collections.Counter
        How many times each kind of entry (the first element of its key) was computed: a
        cache that works builds each once per setting.
    """

    def __init__(self, max_per_kind: int = MAX_PER_KIND):
        self.max_per_kind = int(max_per_kind)
        self.builds: Counter = Counter()
        self._store: OrderedDict = OrderedDict()
        self._lock = threading.RLock()

    def get(self, key: tuple, build: Callable):
        """The value stored under ``key``, or ``build()`` stored there first.

        Arrays in the value are made read-only, so that no caller can change what the next
        stroke reads.
        """
        with self._lock:
            if key in self._store:
                self._store.move_to_end(key)
                return self._store[key]
        value = _read_only(build())
        with self._lock:
            self.builds[key[0]] += 1
            self._store[key] = value
            same = [k for k in self._store if k[0] == key[0]]
            for old in same[:max(0, len(same) - KIND_LIMITS.get(key[0], self.max_per_kind))]:
                del self._store[old]
        return value

    def scope(self, *prefix) -> "ScopedCache":
        """A view whose keys all start with ``prefix`` (e.g. the affinity they derive from)."""
        return ScopedCache(self, tuple(prefix))

    def clear(self) -> None:
        with self._lock:
            self._store.clear()

    def __len__(self) -> int:
        return len(self._store)

    def __getstate__(self):  # a pickled representation carries no cache
        return {"max_per_kind": self.max_per_kind}

    def __setstate__(self, state):
        self.__init__(state["max_per_kind"])


class ScopedCache:
    """A :class:`GraphCache` seen through a key prefix; ``builds`` counts by the kind that
    follows the prefix."""

    def __init__(self, parent: GraphCache, prefix: tuple):
        self.parent, self.prefix = parent, prefix

    def get(self, key: tuple, build: Callable):
        full = (key[0],) + self.prefix + tuple(key[1:])
        return self.parent.get(full, build)


def memo(cache, key: tuple, build: Callable):
    """``cache.get(key, build)``, or ``build()`` when there is no cache (the estimator)."""
    return build() if cache is None else cache.get(key, build)


def _read_only(value):
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif isinstance(value, tuple):
        for v in value:
            _read_only(v)
    elif isinstance(value, dict):
        for v in value.values():
            _read_only(v)
    return value
