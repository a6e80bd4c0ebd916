"""Step 1 of the constraint step: the user's strokes settled into groups of nodes, newest first."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..constraints import Kind


@dataclass
class Resolution:
    """The user's constraints after conflicts are settled.

    Attributes
    ----------
    group : ndarray, shape (n,), int
        Group (must-link component) of each node, ``-1`` for a node no constraint touches.
    apart : list of (int, int)
        Pairs of groups a cannot-link (or two block labels) keeps apart.
    honoured : list of bool
        Per stroke (in the order of ``nc.strokes``): kept (True) or overruled by newer ones.
    """

    group: np.ndarray
    apart: list = field(default_factory=list)
    honoured: list = field(default_factory=list)
    apart_stroke: list = field(default_factory=list)

    @property
    def n_groups(self) -> int:
        return int(self.group.max()) + 1 if self.group.size and self.group.max() >= 0 else 0


class _Groups:
    """Union-find over nodes 0..n-1 and one virtual node per block label (n + label)."""

    def __init__(self, size: int):
        self.parent = list(range(size))  # a Python list: find() runs per cannot-link and join
        self.apart: list[tuple[int, int, int]] = []  # (node, node, stroke index)

    def find(self, x: int) -> int:
        p = self.parent
        root = x
        while p[root] != root:
            root = p[root]
        while p[x] != root:
            p[x], x = root, p[x]
        return root

    def kept_apart(self, ra: int, rb: int) -> bool:
        find = self.find
        for x, y, _ in self.apart:
            fx, fy = find(x), find(y)
            if (fx == ra and fy == rb) or (fx == rb and fy == ra):
                return True
        return False

    def join(self, a: int, b: int) -> bool:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return True
        if self.kept_apart(ra, rb):
            return False
        self.parent[ra] = rb
        return True

    def join_all(self, nodes, anchor: int) -> bool:
        """Join every node to ``anchor``, or nothing if any join contradicts."""
        saved = self.parent.copy()
        if all(self.join(int(x), anchor) for x in nodes):
            return True
        self.parent = saved
        return False

    def separate(self, a: int, b: int, stroke: int) -> bool:
        if a == b or self.find(a) == self.find(b):
            return False
        self.apart.append((a, b, stroke))
        return True


def resolve(nc, neighbourhoods: bool = False) -> Resolution:
    """Settle the user's constraints, newest first (step 1 of the module docstring).

    Parameters
    ----------
    nc : NodeConstraints
        With ``strokes`` (oldest first).
    neighbourhoods : bool
        Also join each endpoint's neighbourhood to it where that contradicts nothing, at lower
        priority than every stroke (not done by :func:`constrained_labels`: see step 1).

    Returns
    -------
    Resolution
        A fresh object per call (callers update it), computed once per ``nc`` and
        ``neighbourhoods``: the constraint step settles the same strokes several times per edit.
    """
    memo = nc.__dict__.setdefault("_resolved", {})
    if neighbourhoods not in memo:
        memo[neighbourhoods] = _resolve(nc, neighbourhoods)
    r = memo[neighbourhoods]
    return Resolution(r.group.copy(), list(r.apart), list(r.honoured), list(r.apart_stroke))


def _resolve(nc, neighbourhoods: bool) -> Resolution:
    n = nc.n_nodes
    n_labels = max([s.label for s in nc.strokes if s.kind == Kind.BLOCK], default=-1) + 1
    g = _Groups(n + n_labels)
    ok = [False] * len(nc.strokes)
    seen_labels: list[int] = []
    for k in range(len(nc.strokes) - 1, -1, -1):
        s = nc.strokes[k]
        if s.kind == Kind.MUST_LINK:
            ok[k] = g.join(s.a, s.b)
        elif s.kind == Kind.CANNOT_LINK:
            ok[k] = g.separate(s.a, s.b, k)
        else:
            anchor = n + s.label
            if s.label not in seen_labels:
                if not all(g.separate(anchor, n + o, k) for o in seen_labels):
                    continue
                seen_labels.append(s.label)
            ok[k] = len(s.nodes) > 0 and g.join_all(s.nodes, anchor)
    for a, b in nc.screen_joins:  # below every stroke, where nothing contradicts (.regroup)
        g.join(int(a), int(b))
    if neighbourhoods:
        for k in range(len(nc.strokes) - 1, -1, -1):
            s = nc.strokes[k]
            if ok[k] and s.kind != Kind.BLOCK:
                for end, node in zip(s.ends, (s.a, s.b)):
                    for x in end:
                        g.join(int(x), node)
    touched = np.zeros(n + n_labels, bool)
    for k, s in enumerate(nc.strokes):
        if ok[k]:
            touched[[s.a, s.b] if s.kind != Kind.BLOCK else list(s.nodes)] = True
            if neighbourhoods and s.kind != Kind.BLOCK:
                for end in s.ends:
                    touched[list(end)] = True
    roots = np.array([g.find(x) for x in range(n + n_labels)])
    touched |= np.isin(roots, roots[touched])
    uniq, inv = np.unique(roots[touched], return_inverse=True)
    group = np.full(n + n_labels, -1, np.int64)
    group[touched] = inv
    apart, apart_stroke = [], []
    for x, y, k in g.apart:
        if ok[k]:
            apart.append((int(group[g.find(x)]), int(group[g.find(y)])))
            apart_stroke.append(k)
    return Resolution(group[:n], apart, ok, apart_stroke)


def _seed_nodes(nc, res: Resolution) -> np.ndarray:
    """The stroke-end and block nodes of the honoured strokes (sorted, distinct)."""
    nodes = set()
    for k, s in enumerate(nc.strokes):
        if res.honoured[k]:
            nodes.update([s.a, s.b] if s.kind != Kind.BLOCK else list(s.nodes))
    return np.array(sorted(x for x in nodes if x >= 0 and res.group[x] >= 0), np.int64)
