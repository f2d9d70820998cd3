"""Chessnut e-boards as a device family: `ble://...?protocol=chessnut` URLs, their check and texts, how a scan
knows one, and the session that reads them (`devices.chessnut.session.ChessnutSession`)."""

from __future__ import annotations

from dataclasses import dataclass

from devices.chessnut.session import (
    CHESSNUT_NAME_PREFIX,
    CHESSNUT_SERVICES,
    ChessnutSession,
    parse_chessnut_url,
)
from devices.family import Role, Session, SessionContext, SessionSink, Text, role_slot

__all__ = ["FAMILY", "ChessnutFamily"]

_WRONG_SPORT = Text("a chessnut e-board needs a chess table", "satranç masası gerekli")
_BAD_URL = Text("invalid chess board address", "geçersiz satranç tahtası adresi")


@dataclass(frozen=True, slots=True)
class ChessnutFamily:
    """Chessnut Air / Air+ / Pro / Go e-boards over Bluetooth LE."""

    name: str = "chessnut"
    protocol: str = "chessnut"
    schemes: tuple[str, ...] = ("ble",)
    query_keys: tuple[str, ...] = ()
    sports: frozenset[str] | None = frozenset({"chess"})
    roles: frozenset[Role] = frozenset({Role.DEVICE})
    page: str | None = None  # the hub opens its devices

    def wrong_sport(self, sport: str) -> Text | None:
        """An e-board stands only at a chess table."""
        return None if self.sports is None or sport in self.sports else _WRONG_SPORT

    def parse(self, url: str) -> object:
        """The board's address and adapter, read as its session reads them."""
        return parse_chessnut_url(url)

    def bad_url(self, url: str) -> Text:
        """Not a chess board's address."""
        return _BAD_URL

    def slot(self, url: str, role: Role) -> str:
        """The table's own device."""
        return role_slot(role)

    def advertises(self, service_uuids: frozenset[str], name: str) -> bool:
        """A board offering Chessnut's services, or named as Chessnut names its boards."""
        return bool(service_uuids & set(CHESSNUT_SERVICES)) or name.startswith(CHESSNUT_NAME_PREFIX)

    def session(self, url: str, sink: SessionSink, device_id: str | None, context: SessionContext) -> Session:
        """A `ChessnutSession` on the hub's BLE connector (the board's id comes from its address)."""
        return ChessnutSession(url, context.ble(), sink)


FAMILY = ChessnutFamily()
