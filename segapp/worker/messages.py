"""The worker protocol's words, spelled once for the window's side and the worker's.

Requests are tuples ``(Op, *args)``; the worker answers zero or more
``(Reply.PROGRESS, text)`` and then ``(Reply.OK, value)`` or ``(Reply.ERROR, message)``.
``str`` enums, so a message pickles as plain text and compares equal to it.
"""

from __future__ import annotations

from enum import Enum


class Op(str, Enum):
    """What the window asks of the worker (the arguments each takes: :mod:`.process`)."""

    IMAGE = "image"                  # token, shape, dtype, then the raw bytes
    GROUND_TRUTH = "ground_truth"    # token, label image or None
    SEGMENT = "segment"              # SegmentRequest
    SCORE = "score"                  # request id
    SUGGEST = "suggest"              # request id: the suggested next stroke of that result
    EXPORT = "export"                # kind, path, request id, opacity, boundaries only
    READ_CONSTRAINTS = "read_constraints"  # path, image shape
    DIAGNOSTICS = "diagnostics"
    QUIT = "quit"

    def __str__(self) -> str:
        return self.value


class Reply(str, Enum):
    """How the worker answers."""

    READY = "ready"        # its process id, once, when started
    PROGRESS = "progress"  # the step it began, in words
    OK = "ok"              # the value
    ERROR = "error"        # a message (never a traceback)

    def __str__(self) -> str:
        return self.value


# The Engine method behind each request that maps one to one (IMAGE, SEGMENT and DIAGNOSTICS
# are handled by the serving loop itself).
ENGINE_METHOD = {Op.GROUND_TRUTH: "set_ground_truth", Op.SCORE: "score", Op.SUGGEST: "suggestion", Op.EXPORT: "export",
                 Op.READ_CONSTRAINTS: "read_constraints"}
