"""What a sans-I/O session protocol reports besides observations: unusable bytes and command outcomes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from devices.command import Ack, CommandFailed
from devices.observations import Observation


class ReadError(Protocol):
    """Bytes from a device that could not be used, in any family's codec (its frame or message
    error): why, in one English sentence, and the bytes."""

    @property
    def kind(self) -> str:
        """What went wrong, as a short code."""
        ...

    @property
    def detail(self) -> str:
        """One English sentence saying what was wrong."""
        ...

    @property
    def raw(self) -> bytes:
        """The bytes, or the first of them."""
        ...


@dataclass(frozen=True, slots=True)
class Rejected:
    """Bytes that could not be used, reported to the sink's `frame_error` at wall time `at`."""

    error: ReadError
    at: float


@dataclass(frozen=True, slots=True)
class CommandAnswered:
    """The device acknowledged command `seq` (or cannot acknowledge at all: `ack.ok` is None)."""

    seq: int
    ack: Ack


@dataclass(frozen=True, slots=True)
class CommandUnanswered:
    """Command `seq` failed: never acknowledged, or no device was there to send it to; `failure` says which."""

    seq: int
    failure: CommandFailed


SessionEvent = Observation | Rejected | CommandAnswered | CommandUnanswered
