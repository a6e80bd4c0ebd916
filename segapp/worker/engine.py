"""The worker's computation: one image held per process, ``core.segment`` per request.

The window sends the image once (:meth:`Engine.set_image`), held as a :class:`core.Prepared`:
its representations, affinities and each method's stroke-independent factorisations are
computed on the first request and reused by every later one. Each request then carries only
the constraints and settings, and its result only node-level arrays, plus the node map
when the window does not hold it yet. Exports and the adjusted Rand index paint labels at
full size here, never in the window.
"""

from __future__ import annotations

import hashlib
import warnings
from collections import OrderedDict

import numpy as np

from segapp import core
from segapp.core.graph_setup import graph_for
from segapp.core import render
from segapp.core.pixel_refinement.params import PIXEL_PARAMS

from .results import NodeMap, SegmentRequest, SegmentResult

KEEP_RESULTS = 4  # segmentations kept for exports and re-scoring, besides the pinned ones
PINNED_SETTINGS = 16  # settings (method, parameters) whose result on screen and newest result stay held


class Engine:
    """State of one worker process: the image, the ground truth, the recent segmentations."""

    def __init__(self):
        self.token: int | None = None
        self.image: np.ndarray | None = None
        self.prepared: core.Prepared | None = None
        self.ground_truth: np.ndarray | None = None
        self.gt_token: int | None = None
        self._recent: OrderedDict[int, core.Segmentation] = OrderedDict()
        self._cons: dict[int, core.Constraints] = {}  # the constraints of each result in _recent
        # per setting (:meth:`_key`): the result last named as ``previous`` (the one on screen)
        # and the newest result, which the next request may name. Never evicted while pinned:
        # in a burst of strokes no result is shown until the burst ends, so the one on screen
        # can be many results old; a compare view asks for seven methods in turn.
        self._pinned: OrderedDict[tuple, dict] = OrderedDict()
        self._maps: dict[int, NodeMap] = {}  # id(representation) -> its NodeMap (the rep is kept alive)
        self._reps: dict[int, object] = {}
        self._prepared: dict = {}  # settings already prepared -> node count of their last result
        self.received = {"image": 0, "segment": 0}  # messages handled (diagnostics)

    def warm_up(self) -> None:
        """Segment a tiny image once and suggest a stroke on it, so the first real request
        pays no import time."""
        img = np.zeros((48, 48, 3))
        img[:, 24:] = 1.0
        cons = core.Constraints([(2, 2, 40, 40)])
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                core.suggest(core.segment(img, cons, n_segments=2, max_nodes=64), cons)
        except core.SegappError:
            pass  # only a warm-up: the real request reports its own errors

    # -- state sent once ------------------------------------------------------------
    def set_image(self, token: int, image: np.ndarray) -> None:
        self.received["image"] += 1
        self.token, self.image = token, image
        self.prepared = core.Prepared(image)
        self._recent.clear()
        self._cons.clear()
        self._pinned.clear()
        self._prepared.clear()

    def set_ground_truth(self, token: int, ground_truth: np.ndarray | None) -> None:
        self.gt_token, self.ground_truth = token, ground_truth

    # -- per request ----------------------------------------------------------------
    def describe(self, req: SegmentRequest) -> str:
        """What this request will spend its time on, for the window's progress message."""
        h, w = self.image.shape[:2]
        key = self._key(req)
        if key in self._prepared:
            n = self._prepared[key]
            return f"{req.method} on {n} nodes…" if n else f"segmenting with {req.method}…"
        self._prepared[key] = None
        kind = req.params.get("representation", "superpixels")
        work = int(req.params.get("work_pixels", 500_000))
        f = max(1, int(np.ceil(np.sqrt(h * w / work))))
        where = f"{w}×{h} image" if f == 1 else f"{-(-w // f)}×{-(-h // f)} working copy of the {w}×{h} image"
        return f"preparing {kind} on the {where}, then {req.method}…"

    def _key(self, req: SegmentRequest) -> tuple:
        """What decides the graph (the pixel refinement's settings do not: a preview's
        ``pixel_band=0`` reuses the prepared graph)."""
        return (self.token, tuple(sorted((k, repr(v)) for k, v in req.params.items() if k not in PIXEL_NAMES)),
                req.method)

    def segment(self, req: SegmentRequest, progress=None) -> SegmentResult:
        """Run ``core.segment`` on the held image.

        ``progress(text)``, when given, hears the method's step once the graph of a new image
        or setting is built (the window's load progress moves from "preparing" to it).

        Raises
        ------
        core.SegappError
            Bad constraints or parameters, or a method that cannot solve the problem.
        """
        self.received["segment"] += 1
        if self.image is None or req.image_token != self.token:
            raise core.SegappError("the worker does not hold this image (internal error; reopen it)")
        cons = core.Constraints(req.must_link, req.cannot_link, req.blocks, order=req.order)
        if progress is not None and self._prepared.get(self._key(req)) is None:
            rep = graph_for(self.prepared, req.method, req.params)  # what core.segment builds first
            progress(f"{req.method} on {rep.n_nodes} nodes…")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # seg.warnings keeps their messages for the status bar
            shown = self._recent.get(req.previous) if req.previous is not None else None
            seg = core.segment(self.prepared, cons, method=req.method, n_segments=req.n_segments,
                               previous=shown, **req.params)
        self._recent[req.rid] = seg
        self._cons[req.rid] = cons
        self._prepared[self._key(req)] = seg.params["n_nodes"]
        self._pin(self._key(req), req.previous, req.rid)
        ref = seg.refinement
        nm = self._node_map(seg.representation if ref is None else ref.base)
        map_key, refine = nm.key, None
        if ref is not None:  # the window cuts the map it holds: a few arrays, not a map per stroke
            refine = (np.asarray(ref.base_labels), np.asarray(ref.changed), np.asarray(ref.changed_labels))
            digest = hashlib.blake2b(ref.changed.tobytes(), digest_size=12)
            digest.update(ref.changed_labels.tobytes())
            digest.update(refine[0].tobytes())
            map_key = f"{nm.key}/{digest.hexdigest()}"
        return SegmentResult(
            rid=req.rid, method=seg.method, n_segments=req.n_segments,
            node_labels=np.asarray(seg.node_labels), node_embedding=np.asarray(seg.node_embedding, np.float32),
            eigenvalues=np.asarray(seg.eigenvalues, float), honoured=dict(seg.honoured),
            warnings=tuple(seg.warnings), info=_plain(seg.info), params=_plain(seg.params),
            seconds=seg.seconds, n_nodes=seg.params["n_nodes"], map_key=map_key,
            node_map=None if nm.key in req.have_maps else nm, ari=self._ari(seg), ari_token=self.gt_token,
            base_key=nm.key, refine=refine)

    def cache_builds(self) -> dict:
        """How often each stroke-independent part was computed for the held image, summed
        over its representations (diagnostics: a working cache builds each once per setting)."""
        total: dict = {}
        for rep in ([] if self.prepared is None else self.prepared.representations()):
            for kind, count in rep.cache.builds.items():
                total[kind] = total.get(kind, 0) + count
        return total

    def suggestion(self, rid: int) -> tuple:
        """``(rid, suggestion)``: where a stroke would help result ``rid`` most,
        ``(point, segment, anchors)`` (:func:`core.suggest`), or None (every node certain,
        or the result no longer held). Asked for once the result is sent, so the result is
        on screen before it is computed."""
        seg = self._recent.get(rid)
        return rid, None if seg is None else _suggestion(seg, self._cons[rid])

    def score(self, rid: int) -> tuple:
        """``(rid, ground-truth token, ARI or None)`` of result ``rid`` against the ground truth."""
        seg = self._recent.get(rid)
        return rid, self.gt_token, None if seg is None else self._ari(seg)

    def read_constraints(self, path: str, shape: tuple) -> tuple:
        """``(path, Constraints)`` of a constraint file validated against ``shape``: parsed here,
        where a long JSON parse holds no lock the window needs."""
        c = core.Constraints.from_json(path)
        c.validate(shape)
        return path, c

    def export(self, kind: str, path: str, rid: int, opacity: float = render.OVERLAY_OPACITY,
               boundaries_only: bool = False) -> str:
        """Write result ``rid`` at full size: ``'labels'``, ``'overlay'`` or ``'eigenvectors'``."""

        seg = self._recent.get(rid)
        if seg is None:
            raise core.SegappError("that result is no longer held; segment again, then export")
        labels = seg.representation.to_pixels(np.asarray(seg.node_labels, np.int32))
        if kind == "labels":
            render.save_labels(path, labels)
        elif kind == "overlay":
            render.save_png(path, render.overlay(self.image, labels, opacity, boundaries_only))
        elif kind == "eigenvectors":
            render.save_png(path, render.eigenvector_strip(
                seg.representation.to_pixels(seg.node_embedding.astype(np.float32)), eigenvalues=seg.eigenvalues,
                first="u*" if seg.method == "csp" else ""))
        else:
            raise core.SegappError(f"unknown export {kind!r}; valid: labels, overlay, eigenvectors")
        return path

    # -- helpers --------------------------------------------------------------------
    def _pin(self, key: tuple, previous: int | None, rid: int) -> None:
        """Hold the result on screen and the newest result of this setting; evict the oldest
        other results beyond :data:`KEEP_RESULTS`."""
        pins = self._pinned.pop(key, {})
        pins["newest"] = rid
        if previous is not None and previous in self._recent:
            pins["shown"] = previous
        self._pinned[key] = pins
        while len(self._pinned) > PINNED_SETTINGS:
            self._pinned.popitem(last=False)
        held = {r for p in self._pinned.values() for r in p.values()}
        loose = [r for r in self._recent if r not in held]
        for r in loose[:max(0, len(loose) - KEEP_RESULTS)]:
            del self._recent[r]
            self._cons.pop(r, None)

    def _ari(self, seg) -> float | None:
        gt = self.ground_truth
        if gt is None or gt.shape != tuple(seg.representation.shape):
            return None
        from segapp.core.eval.metrics import adjusted_rand

        return float(adjusted_rand(gt, seg.representation.to_pixels(np.asarray(seg.node_labels, np.int32))))

    def _node_map(self, rep) -> NodeMap:
        nm = self._maps.get(id(rep))
        if nm is None:
            digest = hashlib.blake2b(np.ascontiguousarray(rep.node_map).view(np.uint8), digest_size=12)
            digest.update(repr((rep.factor, tuple(rep.shape))).encode())
            nm = NodeMap(digest.hexdigest(), rep.node_map, int(rep.factor), tuple(int(s) for s in rep.shape))
            if len(self._maps) >= KEEP_RESULTS:
                self._maps.clear()
                self._reps.clear()
            self._maps[id(rep)], self._reps[id(rep)] = nm, rep
        return nm


PIXEL_NAMES = frozenset(p.name for p in PIXEL_PARAMS)


def _suggestion(seg, cons) -> tuple | None:
    """The best :func:`core.suggest` of ``seg`` as ``(point, segment, anchors)``."""
    from segapp.core.suggestion import suggest

    best = suggest(seg, cons)
    return (best[0].point, best[0].segment, best[0].anchors) if best else None


def _plain(d: dict) -> dict:
    """A copy of ``d`` with numpy scalars as Python numbers (small, readable messages)."""
    return {k: (v.item() if isinstance(v, np.generic) else v) for k, v in d.items()}
