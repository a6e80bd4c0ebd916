"""Preview while drawing: the result for a link or block as it stands, while it is dragged.

While the mouse drags a must-link, cannot-link or block, every move asks for the result with
that item added (not yet an edit: nothing enters the undo stack or the session's
constraints). Previews run in a worker process of their own, made on the first drag, so the
window's worker is free when the stroke is released (its result does not wait for a preview
still computing). That runner keeps only the newest request waiting and shows every result
newer than the last shown, so the preview follows the pointer at the worker's pace and drops
positions it cannot keep up with. The preview skips the pixel refinement (``pixel_band=0``:
node outlines, about half the time per result); the refined result comes when the stroke is
released and committed as any edit.

On by default; View → Preview while drawing turns it off (kept in the settings). It pauses
itself for an image where previews take longer than :data:`SLOW_S` (median of the last
:data:`SAMPLES`; the machine does not
keep up there: a 12-megapixel photo), says so once in the status bar and stops its worker
(made again for the next image). Requests sent before the worker's first answer for an image,
or for new settings (method, segments, parameters), are not timed: they waited for it to
prepare the image's graph or the method's stroke-independent parts, not for previews.
"""

from __future__ import annotations

import time

import numpy as np
from PySide6.QtCore import QObject, Signal

from segapp import core
from segapp.core.constraints import Kind

from .edits import BlockEdit, LinkEdit

SLOW_S = 0.4  # previews slower than this (request to result, median of the last 5) pause for the image
SAMPLES = 5
PREVIEW_PARAMS = {"pixel_band": 0.0, "rounding_texture": 0.0}  # node-level labels, no texture model, while dragging


class Preview(QObject):
    """Requests previews on the controller's runner; ``shown(result)`` for each that arrives.

    Signals
    -------
    shown(SegmentResult) : the newest preview's result (never a committed one)
    paused(str) : previews stopped for this image, and why
    """

    shown = Signal(object)
    paused = Signal(str)

    def __init__(self, model, runner=None):
        """``runner``: a :class:`~.runner.SegmentRunner` (with ``every_newer``) to use; by
        default one with a worker process of its own is made on the first drag."""
        super().__init__()
        self.model, self._runner = model, runner
        self._sent = None  # image token the preview worker holds
        self.enabled = True
        self._rids: dict[int, float] = {}  # preview request id -> when it was sent
        self._paused_token = None
        self.count = 0  # previews shown since start (benchmarks read it)
        self._took: list = []  # the last previews' round trips (s)
        self._prepared_after = None  # requests up to this id waited for the image's preparation
        model.imageChanged.connect(self._on_image)
        model.settingsChanged.connect(self._on_settings)

    @property
    def runner(self):
        if self._runner is None:
            from .runner import SegmentRunner

            self._runner = SegmentRunner(every_newer=True, background=True)
        if not getattr(self, "_connected", False):
            self._runner.finished.connect(self._on_result)
            self._connected = True
        return self._runner

    def _on_image(self) -> None:
        """A new image: the preview worker gets it now (started if need be), so the first
        drag is previewed without waiting for a worker to start."""
        self._rids.clear()
        self._took = []
        self._prepared_after = None
        m = self.model
        if self.enabled and m.image is not None:
            self.runner.set_image(m.image_token, m.image)
            self._sent = m.image_token

    def _on_settings(self) -> None:
        """New settings: the worker prepares their graph or factorisations on the next
        request, which is not timed (nor any sent before its answer)."""
        self._prepared_after = None

    def set_enabled(self, on: bool) -> None:
        self.enabled = bool(on)

    def shutdown(self) -> None:
        if self._runner is not None:
            self._runner.shutdown()

    def _stop_worker(self) -> None:
        """Stop the preview worker in a thread of its own (stopping joins the runner's thread:
        never on the GUI thread)."""
        import threading

        runner, self._runner, self._connected, self._sent = self._runner, None, False, None
        if runner is not None:
            self._rids.clear()
            threading.Thread(target=runner.shutdown, name="segapp-preview-stop", daemon=True).start()

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
        runner = self.runner
        if self._sent != m.image_token:
            runner.set_image(m.image_token, m.image)
            self._sent = m.image_token
            self._prepared_after = None
        rid = runner.request(m.image_token, items[Kind.MUST_LINK], items[Kind.CANNOT_LINK],
                             items[Kind.BLOCK], m.method, m.n_segments, {**m.params, **PREVIEW_PARAMS},
                             order=order, suggest=False)  # the ghost waits for the committed result
        for old in [r for r in self._rids if r <= rid - 64]:  # answers that never came
            del self._rids[old]
        self._rids[rid] = time.perf_counter()
        self._released_at = 0

    def _on_result(self, rid: int, result) -> None:
        """A preview's result arrived: show it (unless the stroke was released since, or
        the image changed), and pause previews for the image if it came too slowly."""
        if rid not in self._rids or self.model.image_token != self._sent:
            return
        if self._prepared_after is None:  # the first answer: everything sent so far waited for the preparation
            self._prepared_after = max(self._rids)
        sent_at = self._rids.pop(rid)
        if rid > self._prepared_after:
            self._took.append(time.perf_counter() - sent_at)
        del self._took[:-SAMPLES]
        slow = len(self._took) == SAMPLES and float(np.median(self._took)) > SLOW_S
        if slow and self._paused_token != self.model.image_token:
            self._paused_token = self.model.image_token
            self.paused.emit(f"preview while drawing paused for this image: a preview takes "
                             f"{float(np.median(self._took)):.1f} s here")
            self._stop_worker()  # its memory back while the image is shown; a new one for the next
        if self._released_after(rid):
            return
        self.count += 1
        self.shown.emit(result)

    def released(self) -> None:
        """The drag ended (an edit, or nothing): previews still computing are not shown."""
        self._released_at = max(self._rids, default=0)

    def _released_after(self, rid: int) -> bool:
        return rid <= getattr(self, "_released_at", 0)
