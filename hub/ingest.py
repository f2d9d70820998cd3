"""Where device observations enter the hub: dedupe, gap detection, binding to a table's match, logging.

Each table's device session reports into a `TableSink`. A frame is applied to match state only if its
`seq` is new for its `(device_id, boot_epoch)`; a resent or late frame is still logged (the log's unique key
stores it once) but never moves a match backwards. A jump in `seq` is a `device.gap` anomaly on the match.
Device health (link, counters, battery) is kept here for `/api/health` and `/api/devices`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from devices.observations import DeviceHello, Heartbeat, LinkChange, LinkState, Observation
from hub.eventlog import EventRecord
from hub.hall import Hall
from hub.matches import EventKind
from hub.rules.base import Severity
from hub.sports import report_to_dict
from hub.venue import TableConfig

log = logging.getLogger(__name__)


@dataclass(slots=True)
class DeviceHealth:
    """What the hub knows of one table's device link; counters only grow."""

    table: str
    url: str | None
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
    errors_by_kind: dict[str, int] = field(default_factory=dict)

    def public(self) -> dict[str, Any]:
        """As plain data."""
        return {name: getattr(self, name) for name in self.__slots__}  # type: ignore[attr-defined]


class Ingest:
    """Turns observations into logged match events, once each."""

    def __init__(self, hall: Hall) -> None:
        self.hall = hall
        self._high_water: dict[tuple[str, int], int] = hall.log.device_high_water()
        self.health: dict[str, DeviceHealth] = {}
        hall.log.add_listener(self._count_duplicates)

    def sink_for(self, table: TableConfig) -> TableSink:
        """The sink a table's device session reports into."""
        self.health[table.id] = DeviceHealth(table=table.id, url=table.device)
        return TableSink(self, table)

    def _count_duplicates(self, records: list[EventRecord], inserted: list[bool]) -> None:
        for record, new in zip(records, inserted, strict=True):
            if not new and record.device_id is not None:
                for h in self.health.values():
                    if h.device_id == record.device_id:
                        h.duplicates += 1

    # -- one observation ------------------------------------------------------------------------------------

    def observe(self, table: TableConfig, obs: Observation) -> None:
        """Log one observation and, if it is new and carries state, fold it into the table's match."""
        health = self.health[table.id]
        health.frames += 1
        health.last_seen = obs.received_at
        key = (obs.device_id, obs.boot_epoch)
        high = self._high_water.get(key)
        report = obs.report

        if isinstance(report, DeviceHello):
            health.device_id, health.family, health.model = report.device_id, report.family, report.model
            health.firmware, health.boot_epoch = report.firmware, report.boot_epoch
        elif isinstance(report, Heartbeat) and report.battery is not None:
            health.battery = report.battery

        if high is not None and obs.seq <= high:
            # Resent or reordered: stored once by the log's unique key, never applied over newer state.
            health.late += 1
            self._log_unbound("device.late", obs, {"report": _plain(report)})
            return
        self._high_water[key] = obs.seq
        if high is not None and obs.seq > high + 1:
            health.gaps += 1
            self._anomaly(
                table,
                obs,
                "device.gap",
                Severity.WARNING,
                f"Device {obs.device_id} skipped frames {high + 1}–{obs.seq - 1}; the board's next full state "
                f"restores the score, but what happened in between was not reported.",
                f"{obs.device_id} cihazından {high + 1}–{obs.seq - 1} numaralı çerçeveler gelmedi; ara olaylar "
                f"bilinmiyor.",
                {
                    "device_id": obs.device_id,
                    "boot_epoch": obs.boot_epoch,
                    "expected": high + 1,
                    "got": obs.seq,
                },
            )

        sport = self.hall.venue_sport(table)
        if isinstance(report, sport.report_type):
            if health.family is not None and health.family not in sport.families:
                self._anomaly(
                    table,
                    obs,
                    "device.wrong_family",
                    Severity.ERROR,
                    f"Device {obs.device_id} is a {health.family}, but table {table.id} plays {sport.name}; "
                    f"its reports are kept but not applied.",
                    f"{obs.device_id} cihazı {health.family} türünde, {table.id} masası ise {sport.name}; "
                    f"raporları saklandı ama uygulanmadı.",
                    {"device_id": obs.device_id, "family": health.family},
                )
                self._log_unbound("device.report", obs, {"report": report_to_dict(report)})
                return
            match_id = self.hall.current_match(table.id, sport.is_fresh_start(report))
            if match_id is not None:
                body = {
                    "device_id": obs.device_id,
                    "boot_epoch": obs.boot_epoch,
                    "seq": obs.seq,
                    "report": report_to_dict(report),
                }
                self.hall.record(
                    match_id,
                    EventKind.DEVICE_REPORT,
                    body,
                    obs.received_at,
                    device_key=(obs.device_id, obs.boot_epoch, obs.seq),
                    raw=obs.raw,
                )
                return
        self._log_unbound(_kind_of(report), obs, {"report": _plain(report)})

    def _log_unbound(self, kind: str, obs: Observation, body: dict[str, Any]) -> None:
        """Log a device frame that belongs to no match (hello, heartbeat, a late frame)."""
        self.hall.log.append(
            EventRecord(
                id=self.hall.log.next_id(),
                kind=kind,
                at=obs.received_at,
                body=body,
                device_id=obs.device_id,
                boot_epoch=obs.boot_epoch,
                seq=obs.seq,
                raw=obs.raw,
            )
        )

    def _anomaly(
        self,
        table: TableConfig,
        obs: Observation,
        code: str,
        severity: Severity,
        message_en: str,
        message_tr: str,
        data: dict[str, Any],
    ) -> None:
        body = {"code": code, "severity": severity.value, "message_en": message_en, "message_tr": message_tr}
        body["data"] = data
        match_id = self.hall.current_match(table.id, fresh_start=False)
        if match_id is not None:
            self.hall.record(match_id, EventKind.ANOMALY, body, obs.received_at)
        else:
            self.hall.log.append(
                EventRecord(id=self.hall.log.next_id(), kind="anomaly", at=obs.received_at, body=body)
            )

    # -- link and framing -----------------------------------------------------------------------------------

    def link_changed(self, table: TableConfig, change: LinkChange) -> None:
        """Keep the link state and why it changed."""
        health = self.health[table.id]
        if change.state is LinkState.CONNECTED and health.link != LinkState.CONNECTED.value and health.frames:
            health.reconnects += 1
        health.link = change.state.value
        health.link_detail = change.detail
        if change.state is LinkState.DISCONNECTED:
            log.info("table %s: device link down: %s", table.id, change.detail)

    def frame_error(self, table: TableConfig, error: Any) -> None:
        """Count a malformed frame; the session has already skipped to the next delimiter."""
        health = self.health[table.id]
        health.frame_errors += 1
        kind = str(getattr(error, "kind", "error"))
        health.errors_by_kind[kind] = health.errors_by_kind.get(kind, 0) + 1
        health.last_error = str(getattr(error, "detail", error))


class TableSink:
    """The `devices.session.SessionSink` for one table: the device layer never sees the hub behind it."""

    def __init__(self, ingest: Ingest, table: TableConfig) -> None:
        self._ingest = ingest
        self.table = table

    def observe(self, observation: Observation) -> None:
        """A report from the device."""
        self._ingest.observe(self.table, observation)

    def link_changed(self, change: LinkChange) -> None:
        """The device connection changed."""
        self._ingest.link_changed(self.table, change)

    def frame_error(self, url: str, device_id: str | None, error: Any, at: float) -> None:
        """The device sent something that is not a frame."""
        self._ingest.frame_error(self.table, error)


def _kind_of(report: object) -> str:
    if isinstance(report, DeviceHello):
        return "device.hello"
    if isinstance(report, Heartbeat):
        return "device.heartbeat"
    return "device.unbound"


def _plain(report: object) -> dict[str, Any]:
    slots = getattr(report, "__slots__", ())
    return {name: _jsonable(getattr(report, name)) for name in slots}


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value
