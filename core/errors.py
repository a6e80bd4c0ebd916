"""Exception and warning classes of segapp's core.

Every problem a user can cause (bad image, bad constraint file, bad parameter, solver
failure) is raised as a :class:`SegappError` subclass with a message that names the
problem and, where there is a choice, lists the valid options. Nothing from numpy or
scipy is meant to reach a user unwrapped.
"""

from __future__ import annotations


class SegappError(ValueError):
    """Base class of every error segapp raises on purpose."""


class InvalidImageError(SegappError):
    """The image cannot be read or is not usable (empty, 1 pixel, NaN, wrong shape)."""


class ConstraintError(SegappError):
    """A constraint or constraint file is malformed or lies outside the image."""


class ParameterError(SegappError):
    """Unknown method or parameter, wrong type, or value out of range."""


class ConvergenceError(SegappError):
    """A solver did not converge and no result could be produced."""


class InvalidDataError(SegappError, TypeError):
    """The estimator's data ``X`` is unusable (NaN, infinite, complex, empty, wrong shape,
    not numbers). Also a :class:`TypeError`, as scikit-learn raises for non-numeric data."""


class OutputError(SegappError, OSError):
    """A file cannot be written: missing folder, a folder in the way, no permission, full
    disk. Also an :class:`OSError`, so callers that catch ``OSError`` keep working; the
    previous file at that path is always left whole."""


class SegappWarning(UserWarning):
    """Base class of segapp's warnings (pytest turns these into errors)."""


class ContradictoryConstraintsWarning(SegappWarning):
    """A pair is both must-linked and cannot-linked (directly or via a must-link chain)."""


class DisconnectedGraphWarning(SegappWarning):
    """The graph the method clusters has more than one connected component."""


class ConvergenceWarning(SegappWarning):
    """A solver needed a fallback or did not reach its tolerance; the result is usable."""


class FallbackWarning(SegappWarning):
    """An optional accelerator is missing, so a slower but equivalent path is used."""
