"""Device health for organisers: each table's link, counters and battery, served on `/api/devices` and the
`devices` topic. Changes are published at most once a second per table, so a chatty device costs the
spectators nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from devices.observations import LinkState
from hub.feed.fanout import Fanout

TOPIC = "devices"
# How the device sessions say a link ended because the device went quiet (devices/silence.py, the BLE
# board sessions): "no data from the board for 5 s; reconnecting", "no board report for 15 s; reconnecting".
_SILENCE = re.compile(r"^no (data from the \w+|board report) for ")


@dataclass(slots=True)
class DeviceHealth:
    """What the hub knows of one table's device link; counters only grow."""

    table: str
    url: str | None
    slot: str = ""  # "" for the table's main device; "wristband-0" etc. for more devices at the table
    device_id: str | None = None
    family: str | None = None
    model: str | None = None
    firmware: str | None = None
    boot_epoch: int | None = None
    link: str = LinkState.DISCONNECTED.value
    link_detail: str = ""
    last_seen: float | None = None
    battery: int | None = None
    frames: int = 0
    frame_errors: int = 0
    duplicates: int = 0
    late: int = 0
    gaps: int = 0
    reconnects: int = 0
    last_error: str = ""
    blocked: str = ""  # why its reports are not applied: "id_conflict", "wrong_family", or ""
    silent: bool = False  # a link was dropped because the device sent nothing; until it reports again
    set_aside: bool = False  # a referee switched its table to its umpire: its reports are kept, not applied
    errors_by_kind: dict[str, int] = field(default_factory=dict)

    def public(self) -> dict[str, Any]:
        """As plain data, with the link's `status` as a referee reads it (`link_status`)."""
        return {**{name: getattr(self, name) for name in self.__slots__}, "status": link_status(self)}


def link_status(health: DeviceHealth) -> str:
    """The link as a referee reads it: "never" (no report since the hub started), "silent" (a link was
    dropped because the device sent nothing for the session's silence timeout, and nothing came since, though
    the port may be open again), "connected", or "disconnected" (closed or failed; the session retries)."""
    if health.last_seen is None:
        return "never"
    if health.silent:
        return "silent"
    return "connected" if health.link == LinkState.CONNECTED.value else "disconnected"


def is_silence(detail: str) -> bool:
    """Whether a link change's detail says the device went quiet (rather than the link closing or failing)."""
    return _SILENCE.match(detail) is not None


class HealthBoard:
    """Every table's DeviceHealth, and what changed since it was last published."""

    def __init__(self, fanout: Fanout) -> None:
        self.tables: dict[str, DeviceHealth] = {}
        self.dirty: set[str] = set()
        self.refusals: list[dict[str, Any]] = []
        self.unbound_anomalies: list[dict[str, Any]] = []
        self.version = 0
        self._fanout = fanout
        fanout.add_source(lambda topic: (lambda: (self.version, self.snapshot())) if topic == TOPIC else None)

    def snapshot(self, *, private: bool = False) -> dict[str, Any]:
        """The whole devices topic; the addresses of refused peers only when `private` (for referees)."""
        refusals, anomalies = self.refusals[-20:], self.unbound_anomalies[-20:]
        if not private:
            refusals = [{k: v for k, v in r.items() if k != "peer"} for r in refusals]
            anomalies = [_without_peer(a) for a in anomalies]
        return {
            "official": False,
            "tables": [h.public() for h in self.tables.values()],
            "refusals": refusals,
            "anomalies": anomalies,
        }

    def publish(self) -> None:
        """Send what changed since the last call, one entry per table."""
        for table in sorted(self.dirty):
            self.version += 1
            self._fanout.publish(TOPIC, self.version, self.tables[table].public(), key=table)
        self.dirty.clear()


def _without_peer(anomaly: dict[str, Any]) -> dict[str, Any]:
    """An anomaly as spectators may see it: without the network address of the peer it names."""
    data = anomaly.get("data")
    if not isinstance(data, dict) or "peer" not in data:
        return anomaly
    return {**anomaly, "data": {k: v for k, v in data.items() if k != "peer"}}
