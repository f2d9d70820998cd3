"""Where device observations enter the hub: dedupe, gap detection, binding to a table's match, logging.

Each table's device session reports into a `TableSink`. A frame is applied to match state only if its
`seq` is new for its `(device_id, boot_epoch)`; a resent or late frame is still logged (the log's unique key
stores it once) but never moves a match backwards. A jump in `seq` is a `device.gap` anomaly on the match.
Device health (link, counters, battery) is kept here for `/api/health` and `/api/devices`.

Joining: the first report a device's session brings to a match after the hub joined the device (the hub
started, a restart, the link came back, the device said hello again) is logged with `"joined": true` in its
body. The match reducer folds that one through the sport's `join` (`hub.rules.registry.SportRules.join`): the state the
match stands at, not a step to judge against what the hub knew before.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from devices.observations import DeviceEvent, DeviceHello, Heartbeat, LinkChange, LinkState, Observation
from hub.hall.live import DeviceReportRow, Hall
from hub.ingest.health import DeviceHealth, HealthBoard, is_silence
from hub.ingest.outages import DeviceOutages
from hub.ingest.scorers import Scorers
from hub.log.eventlog import EventRecord
from hub.matches import EventKind, ScoredBy
from hub.matches.naming import sport_name
from hub.rules.base import Severity
from hub.rules.registry import SportRules
from hub.venue import TableConfig

log = logging.getLogger(__name__)


class Ingest:
    """Turns observations into logged match events, once each."""

    def __init__(self, hall: Hall, board: HealthBoard | None = None) -> None:
        self.hall = hall
        self.board = board or HealthBoard(hall.fanout)
        self.health: dict[str, DeviceHealth] = self.board.tables
        self.dirty = self.board.dirty
        self._high_water: dict[tuple[str, int], int] = hall.log.device_high_water()
        self._last_refusal: dict[tuple[str, str], float] = {}
        self._flagged_bad_data: set[tuple[str, str]] = set()  # (health key, error kind) already shown
        # table -> the kind of report that last showed a fresh start, and whether the last of that kind did
        self._set_up: dict[str, tuple[type, bool]] = {}
        self._joining: set[str] = set()  # health keys whose next report for a match is where the hub joins
        self._unlisted: dict[str, DeviceHealth] = {}  # devices listed once they say something
        self.scorers = Scorers(hall)  # the tables a referee switched to their umpire
        self.outages = DeviceOutages(hall)  # a live match's device going away: one referee item per outage
        hall.log.add_listener(self._count_duplicates)

    def sink_for(
        self, table: TableConfig, url: str | None = None, slot: str = "", *, listed: bool = True
    ) -> TableSink:
        """The sink a table's device session reports into; `slot` names a second device (a wristband). A device
        not `listed` (a browser page every table has) is in the device list only once it has said something."""
        key = f"{table.id}/{slot}" if slot else table.id
        health = DeviceHealth(table=table.id, url=url or table.device, slot=slot)
        if listed:
            self.health[key] = health
        else:
            self._unlisted[key] = health
            self.scorers.browser_keys.add(key)
        health.set_aside = self.scorers.set_aside(table.id, key)
        self._joining.add(key)
        return TableSink(self, table, key)

    def switch_scorer(self, table: TableConfig, by: ScoredBy) -> None:
        """Take the table's score from `by` from now on; a device taken back starts from where the match stands."""
        self.scorers.switch(table.id, by)
        for key, health in self.health.items():
            if health.table == table.id and key not in self.scorers.browser_keys:
                health.set_aside = by is ScoredBy.UMPIRE
                self.dirty.add(key)
                self._joining.add(key)  # switched back: its next report is the state the match stands at

    def _health(self, key: str) -> DeviceHealth:
        """A device's health, listing it the first time a device not yet listed says something."""
        health = self.health.get(key)
        if health is None:
            health = self.health[key] = self._unlisted.pop(key)
        return health

    def _count_duplicates(self, records: list[EventRecord], inserted: list[bool]) -> None:
        for record, new in zip(records, inserted, strict=True):
            if not new and record.device_id is not None:
                for h in self.health.values():
                    if h.device_id == record.device_id:
                        h.duplicates += 1

    # -- one observation ------------------------------------------------------------------------------------

    def observe(self, table: TableConfig, obs: Observation, key: str | None = None) -> None:
        """Log one observation and, if it is new and carries state, fold it into the table's match."""
        self.observe_many(table, (obs,), key)

    def observe_many(
        self, table: TableConfig, observations: Sequence[Observation], key: str | None = None
    ) -> None:
        """`observe` each of a device's observations in order; a run of reports for the table's match is
        folded in one step (`Hall.record_reports`), with the same log rows and the same state as one by one."""
        key = key or table.id
        health = self._health(key)
        self.dirty.add(key)
        if observations:
            if not health.frames or key in self.outages.away:  # back from an outage
                self.outages.heard(health, key, observations[0].received_at)
            health.silent = False
        sport = self.hall.venue_sport(table)
        report_types = sport.report_type
        reports: list[Observation] = []  # to fold into the table's match, before anything else is logged
        high_water = self._high_water
        for obs in observations:
            health.frames += 1
            health.last_seen = obs.received_at
            device_key = (obs.device_id, obs.boot_epoch)
            high = high_water.get(device_key)
            report = obs.report

            if isinstance(report, DeviceHello):
                self._fold(table, sport, reports, key)
                self._joining.add(key)  # a device that (re)booted goes on from wherever its match is
                self._on_hello(table, health, obs, report)
            elif isinstance(report, Heartbeat) and report.battery is not None:
                health.battery = report.battery

            if high is not None and obs.seq <= high:
                # Resent or reordered: stored once by the log's unique key, never applied over newer state.
                health.late += 1
                self._fold(table, sport, reports, key)
                self._log_unbound("device.late", obs, {"report": _plain(report)})
                continue
            high_water[device_key] = obs.seq
            if high is not None and obs.seq > high + 1:
                health.gaps += 1
                self._fold(table, sport, reports, key)
                self._anomaly(
                    table,
                    obs.received_at,
                    "device.gap",
                    Severity.WARNING,
                    f"Device {obs.device_id} skipped frames {high + 1}–{obs.seq - 1}; the board's next full "
                    f"state restores the score, but what happened in between was not reported.",
                    f"{obs.device_id} cihazından {high + 1}–{obs.seq - 1} numaralı çerçeveler gelmedi; ara "
                    f"olaylar bilinmiyor.",
                    {
                        "device_id": obs.device_id,
                        "boot_epoch": obs.boot_epoch,
                        "expected": high + 1,
                        "got": obs.seq,
                    },
                )

            if isinstance(report, report_types) and not _is_link_chatter(report):
                if not health.blocked and not self.scorers.set_aside(table.id, key):
                    reports.append(obs)
                    continue
                # kept in the log, never applied: the referee has the anomaly or the switch that says why
                self._fold(table, sport, reports, key)
                self._log_unbound("device.refused_report", obs, {"report": sport.input_to_dict(report)})
                continue
            self._fold(table, sport, reports, key)
            self._log_unbound(_kind_of(report), obs, {"report": _plain(report)})
        self._fold(table, sport, reports, key)

    def _fold(
        self, table: TableConfig, sport: SportRules[Any, Any], reports: list[Observation], key: str
    ) -> None:
        """Log and fold the reports gathered for the table's match (then forget them): each goes to the match
        the table is on when it comes, as if observed alone; a report for no match is logged unbound. The
        first to reach a match since the hub joined the device (`key`) is marked `"joined"`."""
        if not reports:
            return
        rows: list[DeviceReportRow] = [
            (
                {
                    "device_id": obs.device_id,
                    "boot_epoch": obs.boot_epoch,
                    "seq": obs.seq,
                    "report": sport.input_to_dict(obs.report),
                },
                obs.received_at,
                (obs.device_id, obs.boot_epoch, obs.seq),
                obs.raw,
            )
            for obs in reports
        ]
        i = 0
        while i < len(rows):
            report = reports[i].report
            fresh = self._fresh_start(table.id, report, sport.is_fresh_start(report))
            match_id = self.hall.current_match(table.id, fresh)
            if match_id is None:
                self._log_unbound(
                    _kind_of(reports[i].report), reports[i], {"report": _plain(reports[i].report)}
                )
                i += 1
                continue
            if key in self._joining:
                self._joining.discard(key)
                rows[i][0]["joined"] = True
            taken = self.hall.record_reports(match_id, rows, i)  # up to where the match's status changes
            for later in reports[i + 1 : i + taken]:  # the run's other reports leave the table set up or not
                self._fresh_start(table.id, later.report, sport.is_fresh_start(later.report))
            i += taken
        reports.clear()

    def _fresh_start(self, table_id: str, report: object, fresh: bool) -> bool:
        """A report that starts the table's next match: a fresh start itself, or the next report after one.

        A board set up again before the last game's result was recorded (a resignation the board cannot show)
        was that game's report; once the result is in, the next game's first report, or its clock's, begins
        the next match as the set-up itself would have."""
        kind, was = self._set_up.get(table_id, (None, False))
        if fresh or type(report) is kind:
            self._set_up[table_id] = (type(report), fresh)
        return fresh or was

    def _on_hello(
        self, table: TableConfig, health: DeviceHealth, obs: Observation, hello: DeviceHello
    ) -> None:
        """Take a device's identity; refuse its reports if it belongs to another table or another sport."""
        health.device_id, health.family, health.model = hello.device_id, hello.family, hello.model
        health.firmware, health.boot_epoch = hello.firmware, hello.boot_epoch
        health.blocked = ""
        sport = self.hall.venue_sport(table)
        owner = next(
            (
                h.table
                for h in self.health.values()
                if h.table != table.id
                and h.device_id == hello.device_id
                and h.link == LinkState.CONNECTED.value
            ),
            None,
        )
        if owner is not None:
            health.blocked = "id_conflict"
            self._anomaly(
                table,
                obs.received_at,
                "device.id_conflict",
                Severity.ERROR,
                f"A device on table {table.id} ({health.url}) claims id {hello.device_id}, which is connected at "
                f"table {owner}; its reports are kept but not applied.",
                f"{table.id} masasındaki cihaz, {owner} masasında bağlı olan {hello.device_id} kimliğini "
                f"kullanıyor; raporları saklandı ama uygulanmadı.",
                {"device_id": hello.device_id, "table": table.id, "owner_table": owner},
            )
        elif hello.family not in sport.families:
            health.blocked = "wrong_family"
            self._anomaly(
                table,
                obs.received_at,
                "device.wrong_family",
                Severity.ERROR,
                f"Device {hello.device_id} is a {hello.family}, but table {table.id} plays "
                f"{sport_name(sport.name)[0]}; its reports are kept but not applied.",
                f"{hello.device_id} cihazı {hello.family} türünde, {table.id} masası ise "
                f"{sport_name(sport.name)[1]} masası; raporları saklandı ama uygulanmadı.",
                {"device_id": hello.device_id, "family": hello.family, "sport": sport.name},
            )

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
        table: TableConfig | None,
        at: float,
        code: str,
        severity: Severity,
        message_en: str,
        message_tr: str,
        data: dict[str, Any],
    ) -> None:
        """Record an anomaly on the table's current match, or in the log alone when no match is bound."""
        body: dict[str, Any] = {
            "code": code,
            "severity": severity.value,
            "message_en": message_en,
            "message_tr": message_tr,
            "data": data,
        }
        match_id = self.hall.current_match(table.id, fresh_start=False) if table is not None else None
        if match_id is not None:
            self.hall.record(match_id, EventKind.ANOMALY, body, at)
        else:  # no match to hang it on: the log keeps it, and the devices topic shows the latest
            self.hall.log.append(EventRecord(id=self.hall.log.next_id(), kind="anomaly", at=at, body=body))
            self.board.unbound_anomalies[:] = [*self.board.unbound_anomalies[-99:], {**body, "at": at}]

    # -- link and framing -----------------------------------------------------------------------------------

    def link_changed(self, table: TableConfig, change: LinkChange, key: str | None = None) -> None:
        """Keep the link state and why it changed."""
        key = key or table.id
        health = self._health(key)
        if change.state is LinkState.CONNECTED and health.link != LinkState.CONNECTED.value and health.frames:
            health.reconnects += 1
        if health.link == LinkState.CONNECTED.value and change.state is not LinkState.CONNECTED:
            self.outages.link_lost(health, key, change)
        health.link = change.state.value
        if change.state is LinkState.CONNECTED:
            self._joining.add(key)  # what the device reports first is where its match stands now
        health.link_detail = change.detail
        health.silent = health.silent or (
            change.state is LinkState.DISCONNECTED and is_silence(change.detail)
        )
        self.dirty.add(key)
        if change.state is LinkState.DISCONNECTED:
            log.info("table %s: device link down: %s", table.id, change.detail)

    def frame_error(self, table: TableConfig, error: Any, at: float, key: str | None = None) -> None:
        """Count a malformed frame; a device that is the wrong one, or speaks another version, is an anomaly."""
        key = key or table.id
        health = self._health(key)
        health.frame_errors += 1
        kind = str(getattr(error, "kind", "error"))
        health.errors_by_kind[kind] = health.errors_by_kind.get(kind, 0) + 1
        health.last_error = str(getattr(error, "detail", error))
        self.dirty.add(key)
        if kind in _REFUSAL_KINDS and at - self._last_refusal.get((table.id, kind), float("-inf")) >= 60.0:
            self._last_refusal[(table.id, kind)] = at  # once a minute, not once a frame
            english, turkish = _REFUSAL_KINDS[kind]
            self._anomaly(
                table,
                at,
                f"device.{kind}",
                Severity.ERROR,
                f"Table {table.id} ({health.url}): {english}: {health.last_error}",
                f"{table.id} masası ({health.url}): {turkish}: {health.last_error}",
                {"table": table.id, "kind": kind},
            )
        elif kind not in _REFUSAL_KINDS and not health.blocked and (key, kind) not in self._flagged_bad_data:
            # garbage is counted on every frame but flagged once per kind, so a noisy cable cannot flood
            # the referee; the counts stay on /api/devices (a device already refused is flagged as that)
            self._flagged_bad_data.add((key, kind))
            raw = bytes(getattr(error, "raw", b""))[:64]
            self._anomaly(
                table,
                at,
                "device.bad_data",
                Severity.WARNING,
                f"Table {table.id} ({health.url}) sent data that is not a valid report ({kind}): "
                f"{health.last_error}. It is counted on the device list; this is shown once.",
                f"{table.id} masası ({health.url}) geçersiz veri gönderdi ({kind}): {health.last_error}. "
                f"Cihaz listesinde sayılıyor; bu uyarı bir kez gösterilir.",
                {"table": table.id, "kind": kind, "raw_hex": raw.hex()},
            )

    def device_refused(self, refusal: Any) -> None:
        """A connection the TCP gateway turned away (or a minute's count of them): logged, shown to referees."""
        self.board.refusals[:] = [
            *self.board.refusals[-99:],
            {
                "peer": refusal.peer,
                "device_id": refusal.device_id,
                "reason": refusal.reason.value,
                "at": refusal.at,
                "count": refusal.count,
            },
        ]
        who = refusal.device_id or "an unknown device"
        times_en = f" {refusal.count} times in the last minute" if refusal.count > 1 else ""
        times_tr = f" (son bir dakikada {refusal.count} kez)" if refusal.count > 1 else ""
        # the peer's address is in the data, which referees see and spectators do not (HealthBoard.snapshot)
        self._anomaly(
            None,
            refusal.at,
            "device.refused",
            Severity.ERROR,
            f"The TCP gateway refused {who}{times_en}: {refusal.reason.value} ({refusal.detail}).",
            f"TCP geçidi {refusal.device_id or 'bilinmeyen cihaz'} bağlantısını reddetti{times_tr}: "
            f"{refusal.reason.value}.",
            {
                "peer": refusal.peer,
                "device_id": refusal.device_id,
                "reason": refusal.reason.value,
                "count": refusal.count,
            },
        )


_REFUSAL_KINDS = {
    "wrong_device": ("another device answered where the venue expects a different one", "yanlış cihaz"),
    "unsupported_protocol": (
        "the device speaks a protocol version this hub does not",
        "desteklenmeyen protokol",
    ),
    "bad_version": (
        "frames carry a protocol version this hub does not speak",
        "desteklenmeyen çerçeve sürümü",
    ),
}


class TableSink:
    """The `devices.link.SessionSink` for one device of one table: the device layer never sees the hub."""

    def __init__(self, ingest: Ingest, table: TableConfig, key: str) -> None:
        self._ingest = ingest
        self.table = table
        self.key = key

    def observe(self, observation: Observation) -> None:
        """A report from the device."""
        self._ingest.observe(self.table, observation, self.key)

    def observe_many(self, observations: Sequence[Observation]) -> None:
        """Reports from the device, in order (what one read brought)."""
        self._ingest.observe_many(self.table, observations, self.key)

    def link_changed(self, change: LinkChange) -> None:
        """The device connection changed."""
        self._ingest.link_changed(self.table, change, self.key)

    def frame_error(self, url: str, device_id: str | None, error: Any, at: float) -> None:
        """The device sent something that is not a frame."""
        self._ingest.frame_error(self.table, error, at, self.key)


def _is_link_chatter(report: object) -> bool:
    """Acknowledgements and device errors are about the link, not the match: logged, never folded."""
    return isinstance(report, DeviceEvent) and report.kind in ("ack", "device_error")


def _kind_of(report: object) -> str:
    if isinstance(report, DeviceHello):
        return "device.hello"
    if isinstance(report, Heartbeat):
        return "device.heartbeat"
    if isinstance(report, DeviceEvent):
        return f"device.{report.kind}"
    return "device.unbound"


def _plain(report: object) -> dict[str, Any]:
    slots = getattr(report, "__slots__", ())
    return {name: _jsonable(getattr(report, name)) for name in slots}


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value
