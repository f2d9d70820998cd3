"""The values every rules module returns (facts, anomalies, the outcome of folding one input), and a fast
constructor for the frozen states they build on every event."""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, Generic, TypeVar

S = TypeVar("S")


class Severity(enum.StrEnum):
    """How urgently a referee should look at an anomaly."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class Fact:
    """Something the rules derived from an input: a point, a game won, a move."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Anomaly:
    """A rule the input appears to break, with a stable code and a message in Turkish and English."""

    code: str
    severity: Severity
    message_en: str
    message_tr: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Outcome(Generic[S]):
    """The result of folding one input: the new state, and what the rules saw on the way."""

    state: S
    facts: tuple[Fact, ...] = ()
    anomalies: tuple[Anomaly, ...] = ()


def slot_constructor(cls: type) -> Callable[..., Any]:
    """`cls(*every_field)` for a frozen slotted dataclass without `__post_init__`, setting each slot directly.

    The generated `__init__` of a frozen dataclass goes through `object.__setattr__` once per field; states
    built for every event (a match, a rally) are made several times faster this way, with the same result.
    """
    names = [f.name for f in fields(cls)]
    return slot_builder(cls, ", ".join(names), {name: name for name in names})


def slot_builder(
    cls: type, params: str, values: dict[str, str], namespace: dict[str, Any] | None = None
) -> Callable[..., Any]:
    """A generated `def _build(<params>)` returning a `cls` whose every field is set to its expression in
    `values` (Python source, over the parameters and `namespace`), as the dataclass `__init__` would set it.

    For a frozen slotted dataclass without `__post_init__`. The instance is filled in as an instance of a
    plain class with the very same slots and no `__init__` (so each field is one plain attribute store, not
    a call through `object.__setattr__` or a slot descriptor) and then given its class; Python allows that
    assignment only between classes of the same layout, which is checked here once. Several times faster
    for the states the reducers build on every event, with an equal result.
    """
    names = [f.name for f in fields(cls)]
    assert set(values) == set(names), f"{cls.__name__}: every field needs a value"
    env: dict[str, Any] = {**(namespace or {}), "_new": object.__new__, "_cls": cls}
    twin = type(f"_{cls.__name__}Slots", (), {"__slots__": tuple(cls.__slots__)})  # type: ignore[attr-defined]
    try:
        probe = object.__new__(twin)
        probe.__class__ = cls  # the layouts must agree, or Python refuses
        env["_twin"] = twin
        body = "".join(f"    new.{n} = {values[n]}\n" for n in names)
        source = f"def _build({params}):\n    new = _twin()\n{body}    new.__class__ = _cls\n    return new\n"
    except TypeError:  # not the same layout (a base class with slots of its own): set each slot directly
        for name in names:
            env[f"_set_{name}"] = getattr(cls, name).__set__
        body = "".join(f"    _set_{n}(new, {values[n]})\n" for n in names)
        source = f"def _build({params}):\n    new = _new(_cls)\n{body}    return new\n"
    exec(source, env)
    return env["_build"]  # type: ignore[no-any-return]
