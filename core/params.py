"""Parameter specifications: one source of truth for validation, CLI help and the GUI form."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from .errors import ParameterError


@dataclass(frozen=True)
class ParamSpec:
    """One parameter of a method or of the working representation.

    Parameters
    ----------
    name : str
    type : {int, float, str, bool}
    default : object
        ``None`` means "resolved at run time" (the help says how, e.g. csp's beta by eq. 17).
    low, high : float, optional
        Inclusive bounds unless ``low_open``/``high_open``.
    choices : sequence of str, optional
        The allowed values of a ``str`` parameter.
    help : str
        One sentence, citing the paper and equation where there is one.
    plain : str, optional
        The same in plain words, for a person who has not read the paper; the GUI shows it
        first and ``help`` after it as the paper's statement ("" = ``help`` alone says it).
    """

    name: str
    type: type
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: Sequence[str] | None = None
    log_scale: bool = False
    plain: str = ""

    def range_text(self) -> str:
        if self.choices is not None:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        if self.type is bool:
            return "true or false"
        lo = "(" if self.low_open else "["
        hi = ")" if self.high_open else "]"
        a = "-inf" if self.low is None else f"{self.low:g}"
        b = "inf" if self.high is None else f"{self.high:g}"
        return f"{lo}{a}, {b}{hi}"

    def coerce(self, value: Any) -> Any:
        """Convert ``value`` (possibly a string from the CLI) and check its range."""
        if value is None:
            if self.default is None:
                return None
            raise ParameterError(f"parameter {self.name!r} cannot be None; valid range {self.range_text()}")
        try:
            if self.type is bool:
                if isinstance(value, str):
                    low = value.strip().lower()
                    if low in ("1", "true", "yes", "on"):
                        value = True
                    elif low in ("0", "false", "no", "off"):
                        value = False
                    else:
                        raise ValueError(value)
                value = bool(value)
            elif self.type is int:
                if isinstance(value, float) and not value.is_integer():
                    raise ValueError(value)
                if isinstance(value, bool):
                    raise ValueError(value)
                value = int(value)
            elif self.type is float:
                if isinstance(value, bool):
                    raise ValueError(value)
                value = float(value)
            else:
                value = str(value)
        except (TypeError, ValueError):
            raise ParameterError(
                f"parameter {self.name!r} must be {self.type.__name__}, got {value!r}; "
                f"valid range {self.range_text()}"
            ) from None
        if self.choices is not None and value not in self.choices:
            raise ParameterError(f"parameter {self.name!r} = {value!r} is not {self.range_text()}")
        if self.type in (int, float):
            if value != value or value in (float("inf"), float("-inf")):
                raise ParameterError(f"parameter {self.name!r} must be finite, got {value!r}")
            bad = False
            if self.low is not None:
                bad |= value <= self.low if self.low_open else value < self.low
            if self.high is not None:
                bad |= value >= self.high if self.high_open else value > self.high
            if bad:
                raise ParameterError(
                    f"parameter {self.name!r} = {value!r} is out of range {self.range_text()}"
                )
        return value


@dataclass(frozen=True)
class MethodSpec:
    """A registered method: its function, description, reference and parameters."""

    name: str
    description: str
    reference: str
    params: tuple[ParamSpec, ...]
    fit: Any = field(repr=False)
    node_cap: str | None = None  # name of the parameter that caps the graph's nodes (ssap's ap_nodes)
    plain: str = ""  # what it does in plain words, shown where a person chooses the method
    graph: str = "kernel"  # what the method takes from the boundary graph: 'kernel' or 'adjacency'
    regularised: bool = True  # whether it takes the contour affinity regularised (``regularisation``)

    def param(self, name: str) -> ParamSpec:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


def resolve(specs: Sequence[ParamSpec], given: dict[str, Any], where: str) -> dict[str, Any]:
    """Validate ``given`` against ``specs`` and fill defaults.

    Raises
    ------
    ParameterError
        For an unknown name (the message lists the valid ones) or a bad value.
    """
    names = {p.name: p for p in specs}
    unknown = sorted(set(given) - set(names))
    if unknown:
        valid = ", ".join(sorted(names)) or "(none)"
        raise ParameterError(f"unknown parameter {unknown[0]!r} for {where}; valid parameters: {valid}")
    out = {}
    for p in specs:
        out[p.name] = p.coerce(given[p.name]) if p.name in given else p.default
    return out


MAX_SEED = 2**32 - 1


def check_seed(random_state, name: str = "random_state") -> np.random.RandomState:
    """The one conversion of a seed into a :class:`numpy.random.RandomState`.

    Parameters
    ----------
    random_state : None, int in [0, 2**32 - 1] or numpy.random.RandomState
        ``None``: numpy's global generator, as scikit-learn does.
    name : str
        How the message calls it (``'--seed'`` on the command line).

    Raises
    ------
    ParameterError
        Naming the valid kinds of value.
    """
    from sklearn.utils import check_random_state

    if random_state is None or isinstance(random_state, np.random.RandomState):
        return check_random_state(random_state)
    if isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer)):
        raise ParameterError(f"{name} must be None, an integer in [0, {MAX_SEED}] or a "
                             f"numpy.random.RandomState, got {type(random_state).__name__} {random_state!r:.40}")
    if not 0 <= random_state <= MAX_SEED:
        raise ParameterError(f"{name} = {random_state} is out of range [0, {MAX_SEED}]")
    return np.random.RandomState(int(random_state))
