"""The values every rules module returns (facts, anomalies, the outcome of folding one input)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
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


__all__ = ["Anomaly", "Fact", "Outcome", "Severity"]
