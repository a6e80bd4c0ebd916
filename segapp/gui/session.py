"""The session model: image, constraints, method parameters, representation parameters,
ground truth and the shown result, each with its own signal; every edit undoable.

Constraints are kept as three lists of validated items (links as ``(r1, c1, r2, c2,
weight)``, blocks as :class:`core.Block`: rectangles and brush regions) and, beside each
list, the sequence number each item was made with (the rounding lets the newest win a
conflict); an edit changes one list in place and says which item changed, so it costs the
same with ten links or ten thousand. The model reads no
files: :class:`segapp.gui.controller.Controller` loads them in threads and hands the model
the decoded data.
"""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoGroup, QUndoStack

from segapp.core.constraints import Kind
from segapp import core

from .commands import AddItem, RemoveItem, ReplaceAll
from .edits import KINDS, BlockEdit, EraseEdit, LinkEdit, RegionEdit

# The GUI opens with csp, core.segment's default: on the simulated-user benchmark (README, 200
# training images) it has the best mean ARI after 10 rounds for K = 3 and is far ahead for the
# GUI's default of K = 2 (its paper's two-way setting, the sign of u*).
DEFAULT_METHOD = "csp"
REP_NAMES = frozenset(p.name for p in core.REPRESENTATION_PARAMS)
_TOKENS = itertools.count(1)  # image tokens unique in the process (windows may share a worker)


class SessionModel(QObject):
    """Signals

    imageChanged() : a new image (constraints, result and ground truth are cleared)
    itemInserted(kind, index), itemRemoved(kind, index), constraintsReset() : fine-grained
    constraintsChanged() : after any constraint edit
    methodChanged(name), segmentsChanged(k)
    paramsChanged(name) : a method or representation parameter ("": all of them replaced)
    settingsChanged() : method, segments or any parameter
    groundTruthChanged() : segmentations or the chosen annotator
    resultChanged(SegmentResult), errorOccurred(message)
    suggestionChanged(rid, suggestion) : the suggested next stroke of the shown result ``rid`` arrived
        (:attr:`~segapp.worker.results.SegmentResult.suggestion`; it follows the result)
    constraintsSaved(image_path) : that image's constraints were written to a file

    Each image opened in the session keeps its constraints and undo stack (``undo`` is the
    shown image's, ``undo_group`` follows it): switching images loses nothing.
    """

    imageChanged = Signal()
    itemInserted = Signal(str, int)
    itemRemoved = Signal(str, int)
    constraintsReset = Signal()
    constraintsChanged = Signal()
    methodChanged = Signal(str)
    segmentsChanged = Signal(int)
    paramsChanged = Signal(str)
    settingsChanged = Signal()
    groundTruthChanged = Signal()
    resultChanged = Signal(object)
    suggestionChanged = Signal(int, object)
    errorOccurred = Signal(str)
    constraintsSaved = Signal(str)

    def __init__(self):
        super().__init__()
        self.path: Path | None = None
        self.image: np.ndarray | None = None  # as decoded: sent to the worker once
        self.display: np.ndarray | None = None  # (H, W, 3) uint8 for the canvas
        self.image_token = 0
        self._items: dict[str, list] = {k: [] for k in KINDS}
        self._seq: dict[str, list] = {k: [] for k in KINDS}  # creation sequence number per item
        self._next_seq = 0
        self.method = DEFAULT_METHOD
        self.n_segments = 2
        self.method_params: dict[str, dict] = {}  # per method: only what the user set
        self.rep_params: dict = {}  # representation: only what the user set
        self.ground_truth: list[np.ndarray] = []
        self.gt_boundaries: list[np.ndarray] = []
        self.annotator = 1
        self.result = None
        self.undo_group = QUndoGroup(self)
        self.undo = self._new_stack()
        self._kept: dict[Path, tuple] = {}  # the other images' (items, sequence numbers, undo)

    def _new_stack(self) -> QUndoStack:
        stack = QUndoStack(self)
        self.undo_group.addStack(stack)
        self.undo_group.setActiveStack(stack)
        return stack

    # -- image ----------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, int] | None:
        return None if self.image is None else tuple(self.image.shape[:2])

    def set_image(self, path, image: np.ndarray, display: np.ndarray) -> None:
        """Show a decoded image with the constraints and undo history it had in this session
        (empty the first time); result and ground truth start empty."""
        first = self.path is None  # the stack made in __init__ is still unused
        if not first:
            self._kept[self.path] = (self._items, self._seq, self.undo)
        self.path, self.image, self.display = Path(path), image, display
        items, seq, stack = self._kept.pop(self.path, (None, None, None))
        if stack is None and not first:
            stack = self._new_stack()
        self.undo = stack if stack is not None else self.undo
        self.undo_group.setActiveStack(self.undo)
        self._items = items or {k: [] for k in KINDS}
        self._seq = seq or {k: [] for k in KINDS}
        self.image_token = next(_TOKENS)
        self.result = None
        self.ground_truth, self.gt_boundaries = [], []
        self.imageChanged.emit()
        self.constraintsReset.emit()
        self.groundTruthChanged.emit()
        self.constraintsChanged.emit()

    # -- constraints ----------------------------------------------------------------
    def items(self, kind: str) -> list:
        """The items of ``kind`` (read, never modify: edits go through undo commands)."""
        return self._items[kind]

    def snapshot(self) -> dict:
        """Every item as tuples, cheap (references only): safe to hand to a thread. Key
        ``'order'`` holds the items' creation sequence numbers (:attr:`core.Constraints.order`)."""
        s = {k: tuple(v) for k, v in self._items.items()}
        s["order"] = {k: tuple(v) for k, v in self._seq.items()}
        return s

    def take_seq(self) -> int:
        """A new creation sequence number (larger than every item's)."""
        self._next_seq += 1
        return self._next_seq - 1

    def seq_of(self, kind: str, index: int) -> int:
        """The creation sequence number of one item (O(1), unlike :meth:`snapshot`)."""
        return self._seq[kind][index]

    def unsaved(self) -> list[Path]:
        """Images of this session whose constraints changed since they were last saved or
        loaded (and are not empty), the shown image first."""
        every = [(self.path, self._items, self.undo)] if self.path is not None else []
        every += [(p, items, stack) for p, (items, _seq, stack) in self._kept.items()]
        return [p for p, items, stack in every if not stack.isClean() and any(items.values())]

    def items_of(self, path) -> dict | None:
        """A snapshot (as :meth:`snapshot`) of an image of this session, shown or kept."""
        path = Path(path)
        if path == self.path:
            return self.snapshot()
        if path not in self._kept:
            return None
        items, seq, _stack = self._kept[path]
        return {**{k: tuple(v) for k, v in items.items()}, "order": {k: tuple(v) for k, v in seq.items()}}

    def mark_saved(self, stack: QUndoStack, index: int, image_path) -> None:
        """The constraints of ``stack``'s image as they were at ``index`` are in a file."""
        if stack.index() == index:
            stack.setClean()
        self.constraintsSaved.emit(str(image_path))

    def counts(self) -> dict:
        return {k: len(v) for k, v in self._items.items()}

    @property
    def constraints(self) -> core.Constraints:
        """The constraints as a validated :class:`core.Constraints` (O(n): not for every edit)."""
        s = self.snapshot()
        return core.Constraints(s[Kind.MUST_LINK], s[Kind.CANNOT_LINK], s[Kind.BLOCK], order=s["order"])

    def apply(self, edit) -> None:
        """Apply a typed edit from the canvas as one undoable command."""
        if isinstance(edit, LinkEdit):
            self.add_link(edit.kind, edit.r1, edit.c1, edit.r2, edit.c2)
        elif isinstance(edit, BlockEdit):
            self.add_block(core.Block(edit.label, edit.top, edit.left, edit.bottom, edit.right))
        elif isinstance(edit, RegionEdit):
            self.add_block(edit.block)
        elif isinstance(edit, EraseEdit):
            self.remove(edit.kind, edit.index)
        else:
            raise TypeError(f"not an edit: {edit!r}")

    def add_link(self, kind: str, r1, c1, r2, c2, weight: float = 1.0) -> None:
        item = getattr(core.Constraints(**{kind: [(r1, c1, r2, c2, weight)]}), kind)[0]  # validated form
        self.undo.push(AddItem(self, kind, item))

    def add_block(self, block: core.Block) -> None:
        self.undo.push(AddItem(self, Kind.BLOCK, block))

    def remove(self, kind: str, index: int) -> None:
        self.undo.push(RemoveItem(self, kind, index))

    def clear(self) -> None:
        if any(self._items.values()):
            self.undo.push(ReplaceAll(self, {k: () for k in KINDS}, "clear all"))

    def set_constraints(self, c: core.Constraints, text: str = "load constraints") -> None:
        """Replace every item by those of ``c`` (already validated against the image)."""
        self.undo.push(ReplaceAll(self, {Kind.MUST_LINK: c.must_link, Kind.CANNOT_LINK: c.cannot_link,
                                         Kind.BLOCK: c.blocks, "order": c.order}, text))

    def _insert(self, kind, index, item, seq: int) -> None:
        self._items[kind].insert(index, item)
        self._seq[kind].insert(index, seq)
        self.itemInserted.emit(kind, index)
        self.constraintsChanged.emit()

    def _remove_at(self, kind, index) -> None:
        del self._items[kind][index]
        del self._seq[kind][index]
        self.itemRemoved.emit(kind, index)
        self.constraintsChanged.emit()

    def _reset(self, items: dict) -> None:
        self._items = {k: list(items[k]) for k in KINDS}
        order = items.get("order") or core.Constraints(*(items[k] for k in KINDS)).order
        self._seq = {k: list(order[k]) for k in KINDS}
        self._next_seq = max([self._next_seq - 1, *(s for v in self._seq.values() for s in v)]) + 1
        self.constraintsReset.emit()
        self.constraintsChanged.emit()

    # -- method, segments, parameters -------------------------------------------------
    def set_method(self, method: str) -> None:
        """Switch method; each method keeps its own parameters, the representation's stay."""
        if method not in core.METHODS:
            raise core.ParameterError(f"unknown method {method!r}; valid methods: {', '.join(core.METHODS)}")
        if method != self.method:
            self.method = method
            self.methodChanged.emit(method)
            self.settingsChanged.emit()

    def set_segments(self, k: int) -> None:
        if k != self.n_segments:
            self.n_segments = int(k)
            self.segmentsChanged.emit(self.n_segments)
            self.settingsChanged.emit()

    @property
    def params(self) -> dict:
        """What the user set for the current method and the representation (defaults omitted)."""
        return {**self.rep_params, **self.method_params.get(self.method, {})}

    def set_param(self, name: str, value) -> bool:
        """Set a representation or current-method parameter (``None``: back to the default).

        A bad value is refused with ``errorOccurred`` naming the valid range; nothing changes.
        """
        rep = name in REP_NAMES
        specs = core.REPRESENTATION_PARAMS if rep else core.METHODS[self.method].params
        spec = next((p for p in specs if p.name == name), None)
        target = self.rep_params if rep else self.method_params.setdefault(self.method, {})
        try:
            if spec is None:
                valid = ", ".join(sorted(REP_NAMES | {p.name for p in specs}))
                raise core.ParameterError(f"unknown parameter {name!r} for {self.method}; valid: {valid}")
            value = None if value is None else spec.coerce(value)
        except core.ParameterError as e:
            self.errorOccurred.emit(str(e))
            return False
        if value is None:
            target.pop(name, None)
        else:
            target[name] = value
        self.paramsChanged.emit(name)
        self.settingsChanged.emit()
        return True

    def replace_params(self, method_params: dict, rep_params: dict) -> None:
        """Every parameter at once (restored settings, already validated)."""
        self.method_params = {m: dict(v) for m, v in method_params.items()}
        self.rep_params = dict(rep_params)
        self.paramsChanged.emit("")
        self.settingsChanged.emit()

    # -- ground truth and result ------------------------------------------------------
    def set_ground_truth(self, segmentations: list, boundaries: list) -> None:
        """Human segmentations (H, W) of the image and their boundary pictures (H, W, 4)."""
        self.ground_truth, self.gt_boundaries = list(segmentations), list(boundaries)
        self.annotator = min(max(1, self.annotator), max(1, len(self.ground_truth)))
        self.groundTruthChanged.emit()

    def set_annotator(self, k: int) -> None:
        if k != self.annotator:
            self.annotator = int(k)
            self.groundTruthChanged.emit()

    def current_ground_truth(self) -> np.ndarray | None:
        """The chosen annotator's segmentation if it fits the image, else None."""
        if not self.ground_truth:
            return None
        gt = self.ground_truth[min(self.annotator, len(self.ground_truth)) - 1]
        return gt if gt.shape == self.shape else None

    def set_result(self, result) -> None:
        self.result = result
        self.resultChanged.emit(result)

    def set_suggestion(self, rid: int, suggestion) -> None:
        """The suggested next stroke of result ``rid``, kept on it if it is still the shown one."""
        if self.result is None or self.result.rid != rid:
            return  # a newer result is shown: its own suggestion follows it
        self.result = dataclasses.replace(self.result, suggestion=suggestion)  # results are frozen
        self.suggestionChanged.emit(rid, suggestion)
