"""Preview while drawing: the result for a link or block as it stands, while it is dragged.

While the mouse drags a must-link, cannot-link or block, every move asks the worker for the
result with that item added (not yet an edit: nothing enters the undo stack or the session's
constraints). The runner keeps only the newest request waiting, so the preview follows the
pointer at the worker's pace and drops positions it cannot keep up with. The preview skips
the pixel refinement (``pixel_band=0``: node outlines, about half the time per result); the
refined result comes when the stroke is released and committed as any edit.

On by default; View → Preview while drawing turns it off (kept in the settings). It pauses
itself for an image where a result takes longer than :data:`SLOW_S` (the machine does not
keep up there) and says so once in the status bar.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, Signal

from segapp import core
from segapp.core.constraints import Kind

from .edits import BlockEdit, LinkEdit

SLOW_S = 0.6  # a preview slower than this (request to result) pauses previews for the image
PREVIEW_PARAMS = {"pixel_band": 0.0}  # node-level labels while dragging


class Preview(QObject):
    """Requests previews on the controller's runner; ``shown(result)`` for each that arrives.

    Signals
    -------
    shown(SegmentResult) : the newest preview's result (never a committed one)
    paused(str) : previews stopped for this image, and why
    """

    shown = Signal(object)
    paused = Signal(str)

    def __init__(self, model, runner):
        super().__init__()
        self.model, self.runner = model, runner
        self.enabled = True
        self._rids: dict[int, float] = {}  # preview request id -> when it was sent
        self._paused_token = None
        self.count = 0  # previews shown since start (benchmarks read it)
        model.imageChanged.connect(self._rids.clear)

    def set_enabled(self, on: bool) -> None:
        self.enabled = bool(on)

    def request(self, edit) -> None:
        """Ask for the result with ``edit`` (a LinkEdit or BlockEdit being dragged) added."""
        m = self.model
        if not self.enabled or m.image is None or self._paused_token == m.image_token:
            return
        s = m.snapshot()
        items = {k: list(s[k]) for k in (Kind.MUST_LINK, Kind.CANNOT_LINK, Kind.BLOCK)}
        order = {k: list(v) for k, v in s["order"].items()}
        nxt = 1 + max((q for v in order.values() for q in v), default=-1)
        try:
            if isinstance(edit, LinkEdit):
                item = getattr(core.Constraints(**{edit.kind: [(edit.r1, edit.c1, edit.r2, edit.c2, 1.0)]}),
                               edit.kind)[0]
                kind = edit.kind
            elif isinstance(edit, BlockEdit):
                item, kind = core.Block(edit.label, edit.top, edit.left, edit.bottom, edit.right), Kind.BLOCK
            else:
                return
        except core.SegappError:
            return  # a degenerate drag (no area yet): nothing to preview
        items[kind].append(item)
        order.setdefault(kind, []).append(nxt)
        shown = m.result.rid if m.result is not None else None
        rid = self.runner.request(m.image_token, items[Kind.MUST_LINK], items[Kind.CANNOT_LINK],
                                  items[Kind.BLOCK], m.method, m.n_segments, {**m.params, **PREVIEW_PARAMS},
                                  order=order, previous=shown)
        self._rids = {r: t for r, t in self._rids.items() if r > rid - 64}
        self._rids[rid] = time.perf_counter()

    def owns(self, rid: int) -> bool:
        """Whether result ``rid`` is a preview's."""
        return rid in self._rids

    def deliver(self, rid: int, result) -> None:
        """A preview's result arrived (the newest request): show it, or pause if too slow."""
        took = time.perf_counter() - self._rids.pop(rid)
        if took > SLOW_S and self._paused_token != self.model.image_token:
            self._paused_token = self.model.image_token
            self.paused.emit(f"preview while drawing paused for this image: a result takes {took:.1f} s here")
        self.count += 1
        self.shown.emit(result)
