"""A match as a pure fold over its events: status, provenance, the sport's state, and its anomalies.

`apply_event` is the one reducer for every match event kind (device report, anomaly, referee action). The
hub runs it live and on replay, so a restarted hub rebuilds exactly the state it served.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from hub.rules.base import Anomaly, Fact, Severity
from hub.sports import SPORTS, Sport

MAX_KEPT_ANOMALIES = 200
MAX_KEPT_FACTS = 30


class MatchStatus(enum.StrEnum):
    """Where a match stands; only a referee makes it official."""

    SCHEDULED = "scheduled"
    LIVE = "live"
    FINISHED = "finished"
    OFFICIAL = "official"
    PROTESTED = "protested"
    FORFEIT = "forfeit"
    ABANDONED = "abandoned"


class EventKind(enum.StrEnum):
    """Kinds of match events in the log."""

    DEVICE_REPORT = "device.report"
    ANOMALY = "anomaly"
    REFEREE_CONFIRM = "referee.confirm"
    REFEREE_INPUT = "referee.input"  # a time-out, card, expedite or score correction the referee records
    TICK = "clock.tick"  # time passed with no report (logged only when the rules saw something in it)


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """What the venue file says about a match: fixed for its whole life."""

    id: str
    sport: str
    table: str
    round: int = 1
    players: tuple[str, ...] = ("", "")  # two names, or four for doubles: A1, A2, B1, B2
    best_of: int = 5
    doubles: bool = False
    first_server: str | None = None  # "A"/"B", or in doubles "A1".."B2"; None: from the first report
    first_receiver: str | None = None  # doubles only
    ruleset: str = "ittf"
    length: int = 0  # backgammon: the match is played to this many points
    clock: str | None = None  # backgammon: "simple:600:12" or "bronstein:600:12" (mode:reserve_s:delay_s)

    @property
    def rules(self) -> Sport:
        """The sport's rules."""
        return SPORTS[self.sport]


@dataclass(frozen=True, slots=True)
class AnomalyRecord:
    """An anomaly raised on a match, pinned to the event that shows it."""

    code: str
    severity: Severity
    message_en: str
    message_tr: str
    offset: int
    at: float
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class FactRecord:
    """A derived fact, pinned to the event it came from."""

    kind: str
    data: dict[str, Any]
    offset: int
    at: float


@dataclass(frozen=True, slots=True)
class MatchState:
    """Everything the hub knows about one match at one offset."""

    info: MatchInfo
    sport_state: Any
    status: MatchStatus = MatchStatus.SCHEDULED
    version: int = 0  # the offset of the last event folded in
    updated_at: float | None = None
    started_at: float | None = None
    finished_at: float | None = None
    confirmed_by: str | None = None
    confirmed_at: float | None = None
    anomalies: tuple[AnomalyRecord, ...] = ()
    facts: tuple[FactRecord, ...] = ()

    @property
    def official(self) -> bool:
        """True only once a referee has confirmed the result."""
        return self.status is MatchStatus.OFFICIAL

    @property
    def winner(self) -> int | None:
        """The side the live data says has won, if any."""
        return self.info.rules.winner(self.sport_state)


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """The new match state and what folding the event raised."""

    state: MatchState
    facts: tuple[Fact, ...] = ()
    anomalies: tuple[Anomaly, ...] = ()


class ActionRefused(ValueError):
    """A referee action that the match's state does not allow; the message says why, in both languages."""


def new_match(info: MatchInfo) -> MatchState:
    """A scheduled match with the sport's initial state."""
    return MatchState(info=info, sport_state=info.rules.initial(info.rules.config(info)))


def check_confirm(match: MatchState) -> None:
    """Raise ActionRefused unless a referee may confirm this match now."""
    if match.status is MatchStatus.OFFICIAL:
        raise ActionRefused(f"Match {match.info.id} is already official. / Maç zaten resmî.")
    if match.status is not MatchStatus.FINISHED:
        raise ActionRefused(
            f"Match {match.info.id} is {match.status.value}; only a finished match can be confirmed. "
            f"/ Yalnızca bitmiş bir maç onaylanabilir."
        )


_RULES_KINDS = frozenset((EventKind.DEVICE_REPORT, EventKind.REFEREE_INPUT, EventKind.TICK))
_CLOSED_TO_REPORTS = (MatchStatus.OFFICIAL, MatchStatus.FORFEIT, MatchStatus.ABANDONED)


def apply_event(
    match: MatchState, kind: str, body: dict[str, Any], offset: int, at: float, actor: str | None
):
    """Fold one match event; a rule violation becomes an anomaly, never an exception."""
    rules = match.info.rules
    facts: tuple[Fact, ...] = ()
    anomalies: tuple[Anomaly, ...] = ()
    sport_state = match.sport_state
    status = match.status
    started_at = match.started_at
    finished_at = match.finished_at
    confirmed_by = match.confirmed_by
    confirmed_at = match.confirmed_at

    if kind in _RULES_KINDS:
        if kind == EventKind.TICK:
            assert rules.tick is not None
            report = rules.tick()
        else:
            report = rules.report_from_dict(
                body["report"] if kind == EventKind.DEVICE_REPORT else body["input"]
            )
        outcome = rules.apply(sport_state, report, at)
        if status in _CLOSED_TO_REPORTS:
            if outcome.facts or outcome.anomalies:  # a board repeating its final display is no news
                anomalies = (
                    Anomaly(
                        "match.report_after_close",
                        Severity.WARNING,
                        f"The device reported a change after the match was {status.value}; the result was not changed.",
                        "Cihaz, maç kapandıktan sonra değişiklik bildirdi; sonuç değiştirilmedi.",
                        {"device_id": body.get("device_id")},
                    ),
                )
        else:
            facts, anomalies = outcome.facts, outcome.anomalies
            sport_state = outcome.state
            if status is MatchStatus.SCHEDULED:
                status, started_at = MatchStatus.LIVE, at
            if status is MatchStatus.LIVE and rules.winner(sport_state) is not None:
                status, finished_at = MatchStatus.FINISHED, at
    elif kind == EventKind.ANOMALY:
        anomalies = (
            Anomaly(
                body["code"], Severity(body["severity"]), body["message_en"], body["message_tr"], body["data"]
            ),
        )
    elif kind == EventKind.REFEREE_CONFIRM:
        status, confirmed_by, confirmed_at = MatchStatus.OFFICIAL, actor, at
        facts = (Fact("confirmed", {"by": actor}),)
    else:
        anomalies = (
            Anomaly(
                "log.unknown_event",
                Severity.ERROR,
                f"The log holds an event of unknown kind {kind!r}; it was kept and skipped.",
                f"Kayıtta bilinmeyen türde bir olay var ({kind!r}); saklandı ve atlandı.",
            ),
        )

    kept_anomalies = match.anomalies
    if anomalies:
        kept_anomalies = (
            kept_anomalies
            + tuple(
                AnomalyRecord(a.code, a.severity, a.message_en, a.message_tr, offset, at, a.data)
                for a in anomalies
            )
        )[-MAX_KEPT_ANOMALIES:]
    kept_facts = match.facts
    if facts:
        kept_facts = (kept_facts + tuple([FactRecord(f.kind, f.data, offset, at) for f in facts]))[
            -MAX_KEPT_FACTS:
        ]
    state = MatchState(
        match.info,
        sport_state,
        status,
        offset,
        at,
        started_at,
        finished_at,
        confirmed_by,
        confirmed_at,
        kept_anomalies,
        kept_facts,
    )
    return MatchOutcome(state, facts, anomalies)


# -- plain data, for snapshots and spectators -------------------------------------------------------------


def anomaly_to_dict(a: AnomalyRecord) -> dict[str, Any]:
    """An anomaly record as plain data."""
    return {
        "code": a.code,
        "severity": a.severity.value,
        "message_en": a.message_en,
        "message_tr": a.message_tr,
        "offset": a.offset,
        "at": a.at,
        "data": a.data,
    }


def to_snapshot(match: MatchState) -> dict[str, Any]:
    """Everything needed to resume folding at `match.version`."""
    return {
        "sport_state": match.info.rules.to_dict(match.sport_state),
        "status": match.status.value,
        "version": match.version,
        "updated_at": match.updated_at,
        "started_at": match.started_at,
        "finished_at": match.finished_at,
        "confirmed_by": match.confirmed_by,
        "confirmed_at": match.confirmed_at,
        "anomalies": [anomaly_to_dict(a) for a in match.anomalies],
        "facts": [{"kind": f.kind, "data": f.data, "offset": f.offset, "at": f.at} for f in match.facts],
    }


def from_snapshot(info: MatchInfo, data: dict[str, Any]) -> MatchState:
    """The inverse of `to_snapshot`."""
    return MatchState(
        info=info,
        sport_state=info.rules.from_dict(data["sport_state"]),
        status=MatchStatus(data["status"]),
        version=data["version"],
        updated_at=data["updated_at"],
        started_at=data["started_at"],
        finished_at=data["finished_at"],
        confirmed_by=data["confirmed_by"],
        confirmed_at=data["confirmed_at"],
        anomalies=tuple(
            AnomalyRecord(
                a["code"],
                Severity(a["severity"]),
                a["message_en"],
                a["message_tr"],
                a["offset"],
                a["at"],
                a["data"],
            )
            for a in data["anomalies"]
        ),
        facts=tuple(FactRecord(f["kind"], f["data"], f["offset"], f["at"]) for f in data["facts"]),
    )


def _identity(match: MatchState) -> dict[str, Any]:
    """What every view of a match starts with: which match, where, who, and how far it stands."""
    return {
        "id": match.info.id,
        "sport": match.info.sport,
        "table": match.info.table,
        "round": match.info.round,
        "players": list(match.info.players),
        "status": match.status.value,
        "official": match.official,
        "version": match.version,
        "updated_at": match.updated_at,
    }


def summary(match: MatchState) -> dict[str, Any]:
    """The compact public view for the venue wall: no private data, no history."""
    return {
        **_identity(match),
        "state": match.info.rules.to_dict(match.sport_state),
        "open_anomalies": len(match.anomalies),
    }


def public_view(match: MatchState) -> dict[str, Any]:
    """The full public view of one match for its own screen."""
    return {
        **summary(match),
        "started_at": match.started_at,
        "finished_at": match.finished_at,
        "confirmed_at": match.confirmed_at,
        "facts": [{"kind": f.kind, "data": f.data, "offset": f.offset, "at": f.at} for f in match.facts],
        "anomalies": [anomaly_to_dict(a) for a in match.anomalies],
    }


def referee_view(match: MatchState) -> dict[str, Any]:
    """What the referee console watches of a match: its status and every anomaly with its evidence."""
    return {**_identity(match), "anomalies": [anomaly_to_dict(a) for a in match.anomalies]}
