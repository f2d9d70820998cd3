"""The umpire pad as a device family: a browser page the hub serves for every table (`/pad/TABLE`), which
scores the table by sending what the umpire taps. The hub opens nothing: the pad comes to the hub's web
server, which hands its messages to the table's `PadSession`."""

from __future__ import annotations

from dataclasses import dataclass

from devices.family import Role, Session, SessionContext, SessionSink, Text
from devices.pad.session import PadSession

__all__ = ["FAMILY", "PadFamily"]

_NOT_IN_VENUE = Text(
    "a pad is not named in the venue file: every table has one at /pad/TABLE",
    "tablet salon dosyasında yazılmaz: her masanın /pad/MASA adresinde bir tableti vardır",
)


@dataclass(frozen=True, slots=True)
class PadFamily:
    """Umpire pads: a phone or tablet scoring one table through the hub's own web server."""

    name: str = "pad"
    protocol: str = "pad"
    schemes: tuple[str, ...] = ("pad",)
    query_keys: tuple[str, ...] = ()
    sports: frozenset[str] | None = None  # every sport's table has one
    roles: frozenset[Role] = frozenset({Role.BROWSER})
    page: str | None = "pad"  # the hub serves /pad/TABLE and /api/pad/TABLE

    def wrong_sport(self, sport: str) -> Text | None:
        """None: a pad stands at any table."""
        return None

    def parse(self, url: str) -> object:
        """A pad's address is made by the hub, never written in a venue file."""
        raise ValueError(f"device URL {url!r}: {_NOT_IN_VENUE.english}")

    def bad_url(self, url: str) -> Text:
        """Why a venue file cannot name a pad."""
        return _NOT_IN_VENUE

    def slot(self, url: str, role: Role) -> str:
        """A table's pad has the slot of its family's page."""
        return "pad"

    def advertises(self, service_uuids: frozenset[str], name: str) -> bool:
        """A pad is never found by a BLE scan."""
        return False

    def session(self, url: str, sink: SessionSink, device_id: str | None, context: SessionContext) -> Session:
        """The table's `PadSession`, fed by the hub's web route."""
        return PadSession(url, sink)


FAMILY = PadFamily()
