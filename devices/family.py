"""The device-family seam: what one folder under `devices/` declares so that the hub can run its devices.

A family is a kind of device the hub reads through its own session (a protocol spoken over a port, a brand
of e-board, an umpire's wristband). Its folder declares one `FAMILY` object satisfying `DeviceFamily`: the
URLs it claims (schemes, `protocol=` value, query keys), the check of such a URL, the sports it serves, the
roles it plays at a table, its error texts and its session factory. The hub finds families only through
`devices/registry.py` and hands every factory the same `SessionContext`, so it never names a family.

The commands a referee sends reach every family's session as the same `Command` (Boardcast Wire's command
vocabulary, which each session translates for its device); the hub takes it from here.

(`devices.observations.DeviceFamily` is another thing: the kind of device a HELLO says it is, such as a
chess board or a scoreboard. This module's `DeviceFamily` is the code that reads one.)
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from devices.command import CommandTarget
from devices.link import SessionSink
from devices.transports.base import Opener
from devices.transports.ble import BleConnector
from devices.wire.messages import Command, CommandInvalid, command_fields

__all__ = [
    "Command",
    "CommandInvalid",
    "DeviceFamily",
    "Hosted",
    "Reply",
    "Role",
    "Session",
    "SessionContext",
    "SessionSink",
    "Text",
    "command_fields",
    "role_slot",
]


class Role(enum.Enum):
    """The place a device takes at a table, as the venue file names it."""

    DEVICE = "device"  # the table's own device (`device`)
    CLOCK = "clock"  # a separate clock beside a board that has none (`clock`)
    WRISTBAND = "wristband"  # an umpire's wristband, one per side (`wristbands`)
    BROWSER = "browser"  # a page the hub serves at every table, never named in the venue file


@dataclass(frozen=True, slots=True)
class Text:
    """A user-facing text in English and Turkish."""

    english: str
    turkish: str

    def __str__(self) -> str:
        return f"{self.english} / {self.turkish}"


@dataclass(frozen=True, slots=True)
class SessionContext:
    """What the hub shares with every family's session factory: the same object for all of them."""

    ble: Callable[
        [], BleConnector
    ]  # the hub's one BLE connector (one scanner per adapter), made on first use
    gateway: Callable[[str, str], Opener]  # (tcp:// URL, device id): an opener on the hub's gateway there


class Session(CommandTarget, Protocol):
    """What the hub needs of any family's session: its URL, commands, and run() until cancelled."""

    async def run(self) -> None:
        """Own the device's connection until cancelled; never raise on what the device sends."""
        ...


@dataclass(frozen=True, slots=True)
class Reply:
    """A browser device's answer: whether its message was taken, the family's own answer to send back, and
    when it was not taken, why."""

    taken: bool
    body: dict[str, object]
    refusal: Text | None = None


@runtime_checkable
class Hosted(Session, Protocol):
    """The session of a browser device (`Role.BROWSER`): the hub's web route hands it what the device sent."""

    def receive(self, body: bytes, user: str) -> Reply:
        """Take a message sent with `user`'s token; raise ValueError naming the field if it is not one."""
        ...


class DeviceFamily(Protocol):
    """What a family's folder declares (its `FAMILY`); the hub reaches it through devices/registry.py."""

    @property
    def name(self) -> str:
        """The family's short name, as `boardcast devices` and the docs write it."""
        ...

    @property
    def protocol(self) -> str:
        """The `protocol=` value its URLs carry (the registry's first family also reads URLs with none)."""
        ...

    @property
    def schemes(self) -> tuple[str, ...]:
        """The URL schemes its devices are reached by ("" for a plain device path)."""
        ...

    @property
    def query_keys(self) -> tuple[str, ...]:
        """The URL options its session reads besides the transport's own (`baud`, `adapter`) and `protocol`."""
        ...

    @property
    def sports(self) -> frozenset[str] | None:
        """The sports it serves; None for any (the device says what it is when it connects)."""
        ...

    @property
    def roles(self) -> frozenset[Role]:
        """Where at a table its devices may stand."""
        ...

    @property
    def page(self) -> str | None:
        """For a family of browser devices (`Role.BROWSER`), the page the hub serves each table's device at
        (`/PAGE/TABLE`) and takes its messages on (`/api/PAGE/TABLE`); None for a device the hub opens."""
        ...

    def wrong_sport(self, sport: str) -> Text | None:
        """Why its device cannot stand at a table of `sport`; None if it can (`sport` is in `sports`)."""
        ...

    def parse(self, url: str) -> object:
        """Check a device URL as its session will read it; raise ValueError naming the URL if it cannot."""
        ...

    def bad_url(self, url: str) -> Text:
        """What kind of address `url` failed to be, said after the parser's English reason."""
        ...

    def slot(self, url: str, role: Role) -> str:
        """The name of a device's slot at its table ("" for the table's own device)."""
        ...

    def advertises(self, service_uuids: frozenset[str], name: str) -> bool:
        """Whether a BLE advertisement (lower-case service UUIDs, local name) is one of its devices."""
        ...

    def session(self, url: str, sink: SessionSink, device_id: str | None, context: SessionContext) -> Session:
        """The session that reads the device at `url` into `sink`; `device_id` is the one the venue expects."""
        ...


def role_slot(role: Role) -> str:
    """The slot of a device by its role alone: "" for the table's own device, else the role's name."""
    return "" if role is Role.DEVICE else role.value
