"""D-SCORE wristbands as a device family: `ble://...?protocol=dscore&side=N` URLs, their check and texts, how a
scan knows one, and the session that reads them (`devices.dscore.session.DScoreSession`)."""

from __future__ import annotations

from dataclasses import dataclass

from devices.dscore.session import DSCORE_SERVICE, DScoreSession, parse_dscore_url
from devices.family import Role, Session, SessionContext, SessionSink, Text

__all__ = ["FAMILY", "DScoreFamily"]

_WRONG_SPORT = Text("a D-SCORE wristband needs a table tennis table", "masa tenisi masası gerekli")
_BAD_URL = Text("invalid wristband address", "geçersiz bileklik adresi")


@dataclass(frozen=True, slots=True)
class DScoreFamily:
    """An umpire's wristbands: a green (point) and a red (undo) button, one band per side."""

    name: str = "dscore"
    protocol: str = "dscore"
    schemes: tuple[str, ...] = ("ble",)
    query_keys: tuple[str, ...] = ("side",)  # side=0|1: the side its green button scores for
    sports: frozenset[str] | None = frozenset({"tabletennis"})
    roles: frozenset[Role] = frozenset({Role.WRISTBAND})
    page: str | None = None  # the hub opens its devices

    def wrong_sport(self, sport: str) -> Text | None:
        """A wristband scores table tennis points."""
        return None if self.sports is None or sport in self.sports else _WRONG_SPORT

    def parse(self, url: str) -> object:
        """The band's address and side, read as its session reads them."""
        return parse_dscore_url(url)

    def bad_url(self, url: str) -> Text:
        """Not a wristband's address."""
        return _BAD_URL

    def slot(self, url: str, role: Role) -> str:
        """A band's slot names its side: "wristband-0", "wristband-1"."""
        return f"wristband-{parse_dscore_url(url).side}"

    def advertises(self, service_uuids: frozenset[str], name: str) -> bool:
        """A band offering the D-SCORE service."""
        return DSCORE_SERVICE in service_uuids

    def session(self, url: str, sink: SessionSink, device_id: str | None, context: SessionContext) -> Session:
        """A `DScoreSession` on the hub's BLE connector (the band's id comes from its address)."""
        return DScoreSession(url, context.ble(), sink)


FAMILY = DScoreFamily()
