"""A match as a pure fold over its events: status, provenance, the sport's state, and its anomalies.

`apply_event` is the one reducer for every match event kind (device report, anomaly, referee action). The
hub runs it live and on replay, so a restarted hub rebuilds exactly the state it served.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, overload

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
    # the referee's workflow (hub/referee.py checks each before it is logged): every one names its referee
    REFEREE_ANOMALY = "referee.anomaly"  # an anomaly acknowledged, resolved or dismissed, with a reason
    REFEREE_RESULT = "referee.result"  # a corrected result: supersedes what the devices showed, with a reason
    REFEREE_PENALTY = "referee.penalty"  # a warning, game or match loss, or a card
    REFEREE_FORFEIT = "referee.forfeit"  # the no-show (or the player who will not go on) loses
    REFEREE_APPEAL = "referee.appeal"  # an appeal opened within the window: the match is protested
    REFEREE_DECISION = "referee.decision"  # the decision on the open appeal, with its reasoning
    LOCK = "match.lock"  # a match of the next round started: this result can no longer change


class AnomalyState(enum.StrEnum):
    """Where a referee (or the rules themselves) took an anomaly."""

    OPEN = "open"
    ACKNOWLEDGED = "acknowledged"
    RESOLVED = "resolved"
    DISMISSED = "dismissed"


RULES_ACTOR = (
    "rules"  # who resolved an anomaly that the rules cleared themselves (a wrong move corrected in time)
)


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
    # the time control in the sport's notation: backgammon "simple:600:12" (mode:reserve_s:delay_s);
    # chess "5400+30" (base+increment seconds), "300d5", "40/6000+30:1800+30"
    clock: str | None = None
    clock_white: str | None = (
        None  # chess: "left" or "right", the clock side White's time is on; None: learn it
    )
    board: int | None = None  # chess: the board number within a team match (1..8)
    team_match: str | None = None  # chess: the team match this game belongs to

    @property
    def rules(self) -> Sport:
        """The sport's rules."""
        return SPORTS[self.sport]


@dataclass(frozen=True, slots=True)
class AnomalyRecord:
    """An anomaly raised on a match, pinned to the event that shows it, and where the referee took it."""

    code: str
    severity: Severity
    message_en: str
    message_tr: str
    offset: int
    at: float
    data: dict[str, Any] = field(default_factory=dict)
    index: int = 0  # its place among the anomalies the same event raised
    state: AnomalyState = AnomalyState.OPEN
    handled_by: str | None = None  # the referee, or RULES_ACTOR
    handled_at: float | None = None
    reason: str = ""

    @property
    def id(self) -> str:
        """Stable for the match's whole life: the event's offset and the anomaly's place in it."""
        return f"{self.offset}.{self.index}"


@dataclass(frozen=True, slots=True)
class ResultRecord:
    """A result a referee wrote (correction, forfeit, penalty, appeal decision); it supersedes the live one."""

    winner: int | None  # side 0 or 1; None for a draw
    score: tuple[float, float]  # per side, in the sport's own unit (games, points, game points)
    source: str  # "correction", "forfeit", "penalty" or "appeal"
    reason: str
    by: str | None
    offset: int
    at: float


@dataclass(frozen=True, slots=True)
class PenaltyRecord:
    """A warning, penalty or card a referee recorded against one side."""

    side: int
    penalty: str
    reason: str
    by: str | None
    offset: int
    at: float


@dataclass(frozen=True, slots=True)
class AppealRecord:
    """An appeal and, once made, the decision on it with its reasoning."""

    appellant: str
    reason: str
    by: str | None  # the referee who recorded it
    offset: int
    at: float
    status_before: MatchStatus
    decision: str | None = None  # "upheld" or "rejected"
    reasoning: str = ""
    decided_by: str | None = None
    decided_at: float | None = None


@dataclass(frozen=True, slots=True)
class ActionRecord:
    """One referee (or hub) action on the match, as the audit view shows it."""

    offset: int
    at: float
    actor: str | None
    kind: str
    body: dict[str, Any]


@dataclass(frozen=True, slots=True)
class RefereeRecord:
    """What referees (and the hub's round lock) added to a match. One value, so that the device reports that
    make up most of a match carry it on by reference instead of copying five fields each time."""

    result: ResultRecord | None = None
    locked_at: float | None = None
    appeals: tuple[AppealRecord, ...] = ()
    penalties: tuple[PenaltyRecord, ...] = ()
    actions: tuple[ActionRecord, ...] = ()


NO_REFEREE_RECORD = RefereeRecord()


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
    referee: RefereeRecord = NO_REFEREE_RECORD  # result, lock, appeals, penalties and the audit

    @property
    def result(self) -> ResultRecord | None:
        """A result a referee wrote; it supersedes the live one."""
        return self.referee.result

    @property
    def locked_at(self) -> float | None:
        """When the next round started: from then on the result cannot change."""
        return self.referee.locked_at

    @property
    def appeals(self) -> tuple[AppealRecord, ...]:
        """Every appeal, with its decision once made."""
        return self.referee.appeals

    @property
    def penalties(self) -> tuple[PenaltyRecord, ...]:
        """Every warning, penalty and card recorded."""
        return self.referee.penalties

    @property
    def actions(self) -> tuple[ActionRecord, ...]:
        """Every referee and hub action, for the audit view."""
        return self.referee.actions

    @property
    def official(self) -> bool:
        """True only once a referee has confirmed the result (or declared it, as a forfeit)."""
        return self.status is MatchStatus.OFFICIAL or self.status is MatchStatus.FORFEIT

    @property
    def winner(self) -> int | None:
        """The side that has won: the referee's result if there is one, else what the live data says."""
        if self.result is not None:
            return self.result.winner
        return self.info.rules.winner(self.sport_state)

    @property
    def locked(self) -> bool:
        """True once a match of the next round has started: the result can no longer change."""
        return self.locked_at is not None

    @property
    def open_appeal(self) -> AppealRecord | None:
        """The appeal waiting for its decision, if any."""
        return self.appeals[-1] if self.appeals and self.appeals[-1].decision is None else None


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
_ACTION_KINDS = frozenset(
    (
        EventKind.REFEREE_CONFIRM,
        EventKind.REFEREE_INPUT,
        EventKind.REFEREE_ANOMALY,
        EventKind.REFEREE_RESULT,
        EventKind.REFEREE_PENALTY,
        EventKind.REFEREE_FORFEIT,
        EventKind.REFEREE_APPEAL,
        EventKind.REFEREE_DECISION,
        EventKind.LOCK,
    )
)
_ENDS_UNPLAYED = (MatchStatus.SCHEDULED, MatchStatus.LIVE, MatchStatus.FORFEIT, MatchStatus.ABANDONED)


_DEVICE_REPORT = EventKind.DEVICE_REPORT.value
_LIVE, _SCHEDULED = MatchStatus.LIVE, MatchStatus.SCHEDULED


def apply_event(
    match: MatchState, kind: str, body: dict[str, Any], offset: int, at: float, actor: str | None
) -> MatchOutcome:
    """Fold one match event; a rule violation becomes an anomaly, never an exception."""
    if kind == _DEVICE_REPORT and match.status not in _CLOSED_TO_REPORTS:
        return _fold_report(match, body["report"], offset, at)  # nearly every event: the short way
    return _apply_any(match, kind, body, offset, at, actor)


def _kept_anomalies(
    kept: tuple[AnomalyRecord, ...], facts: Any, anomalies: Any, offset: int, at: float
) -> tuple[AnomalyRecord, ...]:
    """A match's anomalies after an event: those its facts resolved marked so, its new ones added."""
    if facts and kept:
        kept = _resolved_by_rules(kept, facts, at)
    if anomalies:
        kept = (
            kept
            + tuple(
                AnomalyRecord(a.code, a.severity, a.message_en, a.message_tr, offset, at, a.data, i)
                for i, a in enumerate(anomalies)
            )
        )[-MAX_KEPT_ANOMALIES:]
    return kept


def _fold_report(match: MatchState, report: dict[str, Any], offset: int, at: float) -> MatchOutcome:
    """`_apply_any` for a device report on a match still open to reports, step for step, with only what
    that path touches (tests/hub/test_replay.py folds every kind both ways and compares)."""
    info = match.info
    rules = SPORTS[info.sport]
    outcome = rules.apply(match.sport_state, rules.report_from_dict(report), at)
    sport_state = outcome.state
    facts = outcome.facts
    anomalies = outcome.anomalies
    status = match.status
    started_at = match.started_at
    finished_at = match.finished_at
    if status is _SCHEDULED:
        status, started_at = _LIVE, at
    if status is _LIVE and rules.is_over(sport_state):
        status, finished_at = MatchStatus.FINISHED, at
    kept_anomalies = match.anomalies
    if (facts and kept_anomalies) or anomalies:
        kept_anomalies = _kept_anomalies(kept_anomalies, facts, anomalies, offset, at)
    kept_facts = match.facts
    if facts:
        if len(facts) == 1:  # a point: the usual case
            fact = facts[0]
            record = FactRecord(fact.kind, fact.data, offset, at)
            if len(kept_facts) >= MAX_KEPT_FACTS:
                kept_facts = (*kept_facts[len(kept_facts) - MAX_KEPT_FACTS + 1 :], record)
            else:
                kept_facts = (*kept_facts, record)
        else:
            kept_facts += tuple([FactRecord(f.kind, f.data, offset, at) for f in facts])
            if len(kept_facts) > MAX_KEPT_FACTS:
                kept_facts = kept_facts[-MAX_KEPT_FACTS:]
    state = MatchState(
        info,
        sport_state,
        status,
        offset,
        at,
        started_at,
        finished_at,
        match.confirmed_by,
        match.confirmed_at,
        kept_anomalies,
        kept_facts,
        match.referee,
    )
    return MatchOutcome(state, facts, anomalies)


def fold_events(
    match: MatchState,
    rows: Sequence[tuple[int, str, float, str | None, Any]],
    up_to: int | None = None,
    *,
    until_status_changes: bool = False,
) -> tuple[MatchState, int]:
    """`apply_event` over a match's event rows `(offset, kind, at, actor, body)` in offset order, up to offset
    `up_to` (or, with `until_status_changes`, up to and including the first row that changes the match's
    status); returns the state and how many rows were folded.

    Replay's loop. Where the sport offers it (`Sport.fold_reports`), a run of device reports that are each
    one plain rally on a live match is folded in one step and a single state is built for the run; every
    other row goes through `apply_event`. The state is the one folding row by row gives
    (tests/hub/test_replay.py checks it on generated noisy matches).
    """
    end = len(rows)
    if up_to is not None:
        end = next((i for i, row in enumerate(rows) if row[0] > up_to), end)
    if end == 0:
        return match, 0
    rules = SPORTS[match.info.sport]
    fold_reports = rules.fold_reports
    # `apply_event` only ever adds to a match's kept facts (and keeps the newest MAX_KEPT_FACTS), and nothing
    # it does depends on them: so the fold runs with none, gathers each step's facts here, oldest first, as
    # built records or as a run's facts (`Sport.fold_reports`, with its first row), and builds only the newest
    # at the end
    gathered: list[tuple[Any, ...]] = [(match.facts,)]
    match = _with_facts(match, ())
    i = 0
    while i < end:
        if fold_reports is not None and match.status is _LIVE:
            sport_state, folded, run_facts = fold_reports(match.sport_state, rows, i, end)
            if folded:
                gathered.append((run_facts, i))
                i += folded
                offset, _kind, at, _actor, _body = rows[i - 1]
                # a run decides no match and raises no anomaly: status, anomalies and the rest stand
                match = MatchState(
                    match.info,
                    sport_state,
                    match.status,
                    offset,
                    at,
                    match.started_at,
                    match.finished_at,
                    match.confirmed_by,
                    match.confirmed_at,
                    match.anomalies,
                    (),
                    match.referee,
                )
                continue
        offset, kind, at, actor, body = rows[i]
        status = match.status
        match = apply_event(match, kind, body, offset, at, actor).state
        if match.facts:
            gathered.append((match.facts,))
            match = _with_facts(match, ())
        i += 1
        if until_status_changes and match.status is not status:
            end = i
    newest: list[tuple[FactRecord, ...]] = []
    wanted = MAX_KEPT_FACTS
    for part in reversed(gathered):
        if wanted <= 0:
            break
        if len(part) == 1:
            records = part[0][-wanted:]
        else:
            run_facts, first = part
            records = tuple(
                [
                    FactRecord(f.kind, f.data, rows[first + n][0], rows[first + n][2])
                    for n, f in run_facts(wanted)
                ]
            )
        newest.append(records)
        wanted -= len(records)
    return _with_facts(match, tuple(f for records in reversed(newest) for f in records)), end


def _with_facts(match: MatchState, facts: tuple[FactRecord, ...]) -> MatchState:
    return MatchState(
        match.info,
        match.sport_state,
        match.status,
        match.version,
        match.updated_at,
        match.started_at,
        match.finished_at,
        match.confirmed_by,
        match.confirmed_at,
        match.anomalies,
        facts,
        match.referee,
    )


def _apply_any(
    match: MatchState, kind: str, body: dict[str, Any], offset: int, at: float, actor: str | None
) -> MatchOutcome:
    """`apply_event` for every kind of event, closed matches included."""
    rules = match.info.rules
    facts: tuple[Fact, ...] = ()
    anomalies: tuple[Anomaly, ...] = ()
    sport_state = match.sport_state
    status = match.status
    started_at = match.started_at
    finished_at = match.finished_at
    confirmed_by = match.confirmed_by
    confirmed_at = match.confirmed_at
    kept_anomalies = match.anomalies
    referee = match.referee  # a device report carries it on by reference
    result, locked_at = referee.result, referee.locked_at
    appeals, penalties = referee.appeals, referee.penalties

    report = None
    if kind in _RULES_KINDS:
        if kind == EventKind.TICK:
            assert rules.tick is not None
            report = rules.tick()
        else:
            report = rules.report_from_dict(
                body["report"] if kind == EventKind.DEVICE_REPORT else body["input"]
            )
    elif kind == EventKind.REFEREE_PENALTY and body.get("input") is not None:
        report = rules.report_from_dict(body["input"])  # the rules count it too: a table-tennis card
    if report is not None:  # inline, not a helper: this is the path every device report takes
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
            if status is MatchStatus.LIVE and rules.is_over(sport_state):
                status, finished_at = MatchStatus.FINISHED, at

    if kind in _RULES_KINDS:
        pass
    elif kind == EventKind.ANOMALY:
        anomalies = (
            Anomaly(
                body["code"], Severity(body["severity"]), body["message_en"], body["message_tr"], body["data"]
            ),
        )
    elif kind == EventKind.REFEREE_CONFIRM:
        status, confirmed_by, confirmed_at = MatchStatus.OFFICIAL, actor, at
        facts = (Fact("confirmed", {"by": actor}),)
    elif kind == EventKind.REFEREE_ANOMALY:
        wanted, handled = body["anomaly"], AnomalyState(body["state"])
        found = next((i for i, a in enumerate(kept_anomalies) if a.id == wanted), None)
        if found is None:
            anomalies = (
                Anomaly(
                    "log.unknown_anomaly",
                    Severity.WARNING,
                    f"A referee marked anomaly {wanted} {handled.value}, but the match no longer holds it.",
                    f"Hakem {wanted} numaralı anormalliği işaretledi, ancak maçta artık bulunmuyor.",
                    {"anomaly": wanted},
                ),
            )
        else:
            a = kept_anomalies[found]
            kept_anomalies = (
                *kept_anomalies[:found],
                _handled(a, handled, actor, at, body.get("reason", "")),
                *kept_anomalies[found + 1 :],
            )
            facts = (Fact(f"anomaly_{handled.value}", {"anomaly": wanted, "code": a.code, "by": actor}),)
    elif kind == EventKind.REFEREE_RESULT:
        result = _result(body, "correction", actor, offset, at)
        if status in _ENDS_UNPLAYED:
            status = MatchStatus.FINISHED
        finished_at = finished_at if finished_at is not None else at
        facts = (Fact("result_corrected", {"winner": result.winner, "score": list(result.score)}),)
    elif kind == EventKind.REFEREE_PENALTY:
        side = body["side"]
        penalties += (PenaltyRecord(side, body["penalty"], body.get("reason", ""), actor, offset, at),)
        facts = (Fact("penalty", {"side": side, "penalty": body["penalty"]}), *facts)
        if body.get("score") is not None:  # a match loss: written as a forfeit would be
            result = _result({**body, "winner": 1 - side}, "penalty", actor, offset, at)
            status, finished_at = MatchStatus.FORFEIT, finished_at if finished_at is not None else at
    elif kind == EventKind.REFEREE_FORFEIT:
        result = _result({**body, "winner": 1 - body["loser"]}, "forfeit", actor, offset, at)
        status, finished_at = MatchStatus.FORFEIT, finished_at if finished_at is not None else at
        facts = (Fact("forfeit", {"loser": body["loser"], "score": list(result.score)}),)
    elif kind == EventKind.REFEREE_APPEAL:
        appeals += (AppealRecord(body["appellant"], body.get("reason", ""), actor, offset, at, status),)
        status = MatchStatus.PROTESTED
        facts = (Fact("appeal", {"appellant": body["appellant"]}),)
    elif kind == EventKind.REFEREE_DECISION:
        appeal = match.open_appeal
        if appeal is None:
            anomalies = (
                Anomaly(
                    "log.decision_without_appeal",
                    Severity.WARNING,
                    "The log holds an appeal decision with no open appeal; it was kept and skipped.",
                    "Kayıtta açık itirazı olmayan bir itiraz kararı var; saklandı ve atlandı.",
                ),
            )
        else:
            decision = body["decision"]
            appeals = (
                *appeals[:-1],
                AppealRecord(
                    appeal.appellant,
                    appeal.reason,
                    appeal.by,
                    appeal.offset,
                    appeal.at,
                    appeal.status_before,
                    decision,
                    body.get("reasoning", ""),
                    actor,
                    at,
                ),
            )
            status = appeal.status_before
            if decision == "upheld" and body.get("score") is not None:
                # the chief referee's decision is final (seed 000 §10): the new result is official at once
                result = _result(body, "appeal", actor, offset, at)
                status, confirmed_by, confirmed_at = MatchStatus.OFFICIAL, actor, at
            facts = (Fact("appeal_decided", {"decision": decision}),)
    elif kind == EventKind.LOCK:
        locked_at = locked_at if locked_at is not None else at
        facts = (Fact("locked", {"round": body.get("round"), "because": body.get("because")}),)
    else:
        anomalies = (
            Anomaly(
                "log.unknown_event",
                Severity.ERROR,
                f"The log holds an event of unknown kind {kind!r}; it was kept and skipped.",
                f"Kayıtta bilinmeyen türde bir olay var ({kind!r}); saklandı ve atlandı.",
            ),
        )

    if kind in _ACTION_KINDS:
        action = ActionRecord(offset, at, actor, str(kind), body)
        referee = RefereeRecord(result, locked_at, appeals, penalties, (*referee.actions, action))
    if (facts and kept_anomalies) or anomalies:
        kept_anomalies = _kept_anomalies(kept_anomalies, facts, anomalies, offset, at)
    kept_facts = match.facts
    if facts:
        kept_facts += tuple([FactRecord(f.kind, f.data, offset, at) for f in facts])
        if len(kept_facts) > MAX_KEPT_FACTS:
            kept_facts = kept_facts[-MAX_KEPT_FACTS:]
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
        referee,
    )
    return MatchOutcome(state, facts, anomalies)


def _handled(a: AnomalyRecord, state: AnomalyState, by: str | None, at: float, reason: str) -> AnomalyRecord:
    return AnomalyRecord(
        a.code, a.severity, a.message_en, a.message_tr, a.offset, a.at, a.data, a.index, state, by, at, reason
    )


def _resolved_by_rules(
    anomalies: tuple[AnomalyRecord, ...], facts: tuple[Fact, ...], at: float
) -> tuple[AnomalyRecord, ...]:
    """A rules fact `anomaly_resolved` {"code": …} clears the latest anomaly of that code still waiting."""
    for fact in facts:
        if fact.kind != "anomaly_resolved":
            continue
        code = fact.data.get("code")
        for i in range(len(anomalies) - 1, -1, -1):
            a = anomalies[i]
            if a.code == code and a.state in (AnomalyState.OPEN, AnomalyState.ACKNOWLEDGED):
                how = str(fact.data.get("how", "by the rules"))
                anomalies = (
                    *anomalies[:i],
                    _handled(a, AnomalyState.RESOLVED, RULES_ACTOR, at, how),
                    *anomalies[i + 1 :],
                )
                break
    return anomalies


def _result(body: dict[str, Any], source: str, by: str | None, offset: int, at: float) -> ResultRecord:
    a, b = body["score"]
    return ResultRecord(body.get("winner"), (a, b), source, body.get("reason", ""), by, offset, at)


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
        "id": a.id,
        "index": a.index,
        "state": a.state.value,
        "handled_by": a.handled_by,
        "handled_at": a.handled_at,
        "reason": a.reason,
    }


@overload
def result_to_dict(r: ResultRecord) -> dict[str, Any]: ...
@overload
def result_to_dict(r: None) -> None: ...
def result_to_dict(r: ResultRecord | None) -> dict[str, Any] | None:
    """A referee's result as plain data."""
    if r is None:
        return None
    return {
        "winner": r.winner,
        "score": list(r.score),
        "source": r.source,
        "reason": r.reason,
        "by": r.by,
        "offset": r.offset,
        "at": r.at,
    }


def appeal_to_dict(a: AppealRecord) -> dict[str, Any]:
    """An appeal, and its decision once made, as plain data."""
    return {
        "appellant": a.appellant,
        "reason": a.reason,
        "by": a.by,
        "offset": a.offset,
        "at": a.at,
        "status_before": a.status_before.value,
        "decision": a.decision,
        "reasoning": a.reasoning,
        "decided_by": a.decided_by,
        "decided_at": a.decided_at,
    }


def penalty_to_dict(p: PenaltyRecord) -> dict[str, Any]:
    """A penalty as plain data."""
    return {
        "side": p.side,
        "penalty": p.penalty,
        "reason": p.reason,
        "by": p.by,
        "offset": p.offset,
        "at": p.at,
    }


def action_to_dict(a: ActionRecord) -> dict[str, Any]:
    """An audit entry as plain data."""
    return {"offset": a.offset, "at": a.at, "actor": a.actor, "kind": a.kind, "body": a.body}


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
        "result": result_to_dict(match.result),
        "locked_at": match.locked_at,
        "appeals": [appeal_to_dict(a) for a in match.appeals],
        "penalties": [penalty_to_dict(p) for p in match.penalties],
        "actions": [action_to_dict(a) for a in match.actions],
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
                a.get("index", 0),
                AnomalyState(a.get("state", "open")),
                a.get("handled_by"),
                a.get("handled_at"),
                a.get("reason", ""),
            )
            for a in data["anomalies"]
        ),
        facts=tuple(FactRecord(f["kind"], f["data"], f["offset"], f["at"]) for f in data["facts"]),
        referee=_referee_from_snapshot(data),
    )


def _referee_from_snapshot(data: dict[str, Any]) -> RefereeRecord:
    if (
        data.get("result") is None
        and data.get("locked_at") is None
        and not any(data.get(k) for k in ("appeals", "penalties", "actions"))
    ):
        return NO_REFEREE_RECORD  # a snapshot from before the referee workflow, or of an untouched match
    return RefereeRecord(
        result=_result_from_dict(data.get("result")),
        locked_at=data.get("locked_at"),
        appeals=tuple(
            AppealRecord(
                a["appellant"],
                a["reason"],
                a["by"],
                a["offset"],
                a["at"],
                MatchStatus(a["status_before"]),
                a["decision"],
                a["reasoning"],
                a["decided_by"],
                a["decided_at"],
            )
            for a in data.get("appeals", ())
        ),
        penalties=tuple(
            PenaltyRecord(p["side"], p["penalty"], p["reason"], p["by"], p["offset"], p["at"])
            for p in data.get("penalties", ())
        ),
        actions=tuple(
            ActionRecord(a["offset"], a["at"], a["actor"], a["kind"], a["body"])
            for a in data.get("actions", ())
        ),
    )


def _result_from_dict(r: dict[str, Any] | None) -> ResultRecord | None:
    if r is None:
        return None
    a, b = r["score"]
    return ResultRecord(r["winner"], (a, b), r["source"], r["reason"], r["by"], r["offset"], r["at"])


def _identity(match: MatchState) -> dict[str, Any]:
    """What every view of a match starts with: which match, where, who, and how far it stands."""
    extra = {}
    if match.info.team_match is not None:
        extra = {"team_match": match.info.team_match, "board": match.info.board}
    return {
        **extra,
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
        "state": match.info.rules.tile_state(match.sport_state),
        "open_anomalies": sum(1 for a in match.anomalies if a.state in _WAITING),
        "result": _public_result(match.result),
        "locked": match.locked,
    }


_WAITING = (AnomalyState.OPEN, AnomalyState.ACKNOWLEDGED)


def _public_result(r: ResultRecord | None) -> dict[str, Any] | None:
    """What spectators see of a referee's result: who won, the score and how it came about."""
    return None if r is None else {"winner": r.winner, "score": list(r.score), "source": r.source}


# What spectators never see of a referee's work: the notes written for the log, and (unless the venue opts in
# with `show_referee_names`) who did it. The decision itself, and an appeal decision's reasoning, are public.
_PRIVATE_NOTES = frozenset({"reason"})
_REFEREE_NAMES = frozenset({"by", "handled_by", "decided_by", "confirmed_by", "actor"})


def _public(data: dict[str, Any], names: bool) -> dict[str, Any]:
    """`data` without its private notes, and without referees' names unless `names`."""
    return {k: v for k, v in data.items() if k not in _PRIVATE_NOTES and (names or k not in _REFEREE_NAMES)}


def public_view(match: MatchState, *, referee_names: bool = False) -> dict[str, Any]:
    """The full public view of one match for its own screen: every decision, no referee's note, and no
    referee's name unless `referee_names` (the venue's `show_referee_names`)."""
    by_referee = {a.offset for a in match.actions}  # facts of these events may carry a name or a note
    result = match.result
    return {  # `summary`'s keys in its order, with the whole state and result where it has the tile's
        **_identity(match),
        "state": match.info.rules.public_state(match.sport_state),
        "open_anomalies": sum(1 for a in match.anomalies if a.state in _WAITING),
        "result": None if result is None else _public(result_to_dict(result), referee_names),
        "locked": match.locked,
        "started_at": match.started_at,
        "finished_at": match.finished_at,
        **({"confirmed_by": match.confirmed_by} if referee_names else {}),
        "confirmed_at": match.confirmed_at,
        "facts": [
            {
                "kind": f.kind,
                "data": _public(f.data, referee_names) if f.offset in by_referee else f.data,
                "offset": f.offset,
                "at": f.at,
            }
            for f in match.facts
        ],
        "anomalies": [_public_anomaly(a, referee_names) for a in match.anomalies],
        # the decision and its reasoning are shown to the players (seed 000 §10); the grounds as the referee
        # wrote them down stay in the referee's views
        "appeals": [_public(appeal_to_dict(a), referee_names) for a in match.appeals],
        "penalties": [
            _public({"side": p.side, "penalty": p.penalty, "at": p.at, "by": p.by}, referee_names)
            for p in match.penalties
        ],
    }


def _public_anomaly(a: AnomalyRecord, names: bool) -> dict[str, Any]:
    view = anomaly_to_dict(a)
    if (
        a.handled_by == RULES_ACTOR
    ):  # the rules cleared it themselves: no referee, and what they saw is public
        return view
    return _public(view, names)


def referee_view(match: MatchState) -> dict[str, Any]:
    """What the referee console watches of a match: status, result, anomalies, appeals, penalties, actions."""
    return {
        **_identity(match),
        "winner": match.winner,
        "started_at": match.started_at,
        "finished_at": match.finished_at,
        "confirmed_by": match.confirmed_by,
        "confirmed_at": match.confirmed_at,
        "locked": match.locked,
        "locked_at": match.locked_at,
        "result": result_to_dict(match.result),
        "anomalies": [anomaly_to_dict(a) for a in match.anomalies],
        "appeals": [appeal_to_dict(a) for a in match.appeals],
        "penalties": [penalty_to_dict(p) for p in match.penalties],
        "actions": [action_to_dict(a) for a in match.actions],
    }
