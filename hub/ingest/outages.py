"""A live match's device going away: one referee item per outage, closed by the hub when the device is back.

When a table's device link goes down (the board was unplugged, the connection closed, or the session heard
nothing for its silence timeout and reconnects) while the table's match is live, the match gets one
`device.offline` anomaly, an ordinary event in the log. Reconnection attempts that fail again are the same
outage: nothing more is logged. The first report the device sends after it, on the same connection or a
later one, closes the item with a `referee.anomaly` event by the hub itself (`SYSTEM_ACTOR`), so the audit and
a replay show when and why. An item a referee already resolved or dismissed is left as the referee left it.
A hub restarted during an outage finds the item still open in the log and closes it on the device's first
report the same way.
"""

from __future__ import annotations

from devices.observations import LinkChange
from hub.hall.live import Hall
from hub.ingest.health import DeviceHealth
from hub.matches import WAITING, EventKind, MatchStatus
from hub.referee import SYSTEM_ACTOR, Action, handle_anomaly
from hub.rules.base import Severity

CODE = "device.offline"


class DeviceOutages:
    """Which devices are away during a live match, and the one item each outage raised."""

    def __init__(self, hall: Hall) -> None:
        self.hall = hall
        self.away: dict[str, str] = {}  # health key -> the match its outage's item is on

    def link_lost(self, health: DeviceHealth, key: str, change: LinkChange) -> None:
        """The device's link went down: one item on the table's live match, unless this outage has one."""
        if key in self.away or change.attempt == 0:
            return  # attempt 0: the session was stopped (the hub is shutting down), the device did not go away
        match_id = self.hall.current_match(health.table, fresh_start=False)
        if match_id is None or self.hall.working[match_id].status is not MatchStatus.LIVE:
            return  # nothing is being played on it: the device list shows the link, no referee item
        kind = health.slot or "device"  # which of the table's devices: the item's key beside its code
        self.away[key] = match_id
        english, turkish = _reason(change.detail)
        who = health.device_id or health.url or "?"
        role_en, role_tr = _ROLE.get(kind, (kind, kind))
        body = {
            "code": CODE,
            "severity": Severity.WARNING.value,
            "message_en": (
                f"Table {health.table}'s {role_en} ({who}) stopped reporting during the match: {english}. "
                f"Nothing is scored from it until it is back; keep the score by hand if play goes on. "
                f"This item closes itself when the device reports again."
            ),
            "message_tr": (
                f"{health.table} masasının {role_tr} ({who}) maç sırasında bildirim göndermiyor: {turkish}. "
                f"Geri gelene kadar ondan skor alınmaz; oyun sürerse skoru elle tutun. Cihaz yeniden "
                f"bildirdiğinde bu kayıt kendiliğinden kapanır."
            ),
            "data": {"table": health.table, "kind": kind, "device_id": health.device_id, "url": health.url},
        }
        self.hall.record(match_id, EventKind.ANOMALY, body, change.at)

    def heard(self, health: DeviceHealth, key: str, at: float) -> None:
        """The device reported: the item its outage raised is resolved by the hub, in the log."""
        # not away: the first report since the hub started, which closes an outage from before a restart
        match_id = self.away.pop(key, None) or self.hall.current_match(health.table, fresh_start=False)
        if match_id is None:
            return
        kind = health.slot or "device"
        match = self.hall.working[match_id]
        for item in match.anomalies:
            if item.code == CODE and item.state in WAITING and item.data.get("kind") == kind:
                event = handle_anomaly(match, item.id, Action.RESOLVE, _BACK)
                self.hall.record(match_id, event.kind, event.body, at, actor=SYSTEM_ACTOR)
                match = self.hall.working[match_id]


_BACK = "the device reported again / cihaz yeniden bildirim gönderdi"
_ROLE = {
    "device": ("device", "cihazı"),
    "clock": ("clock", "saati"),
    "wristband-0": ("umpire's wristband (side A)", "hakem bilekliği (A tarafı)"),
    "wristband-1": ("umpire's wristband (side B)", "hakem bilekliği (B tarafı)"),
}


def _reason(detail: str) -> tuple[str, str]:
    """A link detail ("english / türkçe", as device sessions write them) as its English and Turkish."""
    english, _, turkish = detail.partition(" / ")
    english = english.strip() or "the link is down"
    return english, turkish.strip() or english
