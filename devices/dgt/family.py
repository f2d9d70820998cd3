"""DGT e-boards as a device family: `serial://...?protocol=dgt` URLs, their check and texts, and the session
that reads them (`devices.dgt.session.DgtSession`)."""

from __future__ import annotations

from dataclasses import dataclass

from devices.dgt.port import parse_dgt_url
from devices.dgt.session import DgtSession
from devices.family import Role, Session, SessionContext, SessionSink, Text, role_slot

__all__ = ["FAMILY", "DgtFamily"]

_WRONG_SPORT = Text("a dgt e-board needs a chess table", "satranç masası gerekli")
_BAD_URL = Text("invalid chess board address", "geçersiz satranç tahtası adresi")


@dataclass(frozen=True, slots=True)
class DgtFamily:
    """DGT e-boards (and a DGT 3000 clock through the board) on a serial or Bluetooth serial port."""

    name: str = "dgt"
    protocol: str = "dgt"
    schemes: tuple[str, ...] = ("serial",)
    query_keys: tuple[str, ...] = ("bt",)  # bt=1: a Bluetooth board (devices/dgt/port.py)
    sports: frozenset[str] | None = frozenset({"chess"})
    roles: frozenset[Role] = frozenset({Role.DEVICE})
    page: str | None = None  # the hub opens its devices

    def wrong_sport(self, sport: str) -> Text | None:
        """An e-board stands only at a chess table."""
        return None if self.sports is None or sport in self.sports else _WRONG_SPORT

    def parse(self, url: str) -> object:
        """The board's port, baud rate and link, read as its session reads them."""
        return parse_dgt_url(url)

    def bad_url(self, url: str) -> Text:
        """Not a chess board's address."""
        return _BAD_URL

    def slot(self, url: str, role: Role) -> str:
        """The table's own device."""
        return role_slot(role)

    def advertises(self, service_uuids: frozenset[str], name: str) -> bool:
        """Never: a DGT board is read over a serial port, not found by a BLE scan."""
        return False

    def session(self, url: str, sink: SessionSink, device_id: str | None, context: SessionContext) -> Session:
        """A `DgtSession` on the board's own port."""
        return DgtSession(url, sink, expected_device_id=device_id)


FAMILY = DgtFamily()
