"""The match reducer: `apply_event` folds one event of any kind into a match, through a table of handlers by
event kind; `fold_events` folds a match's log rows with it (replay). A rule violation becomes an anomaly, never
an exception. The hub runs the same reducer live and on replay, so a restarted hub rebuilds exactly the state
it served."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import hub.matches.actions as actions
from hub.matches.effects import audited, fold_rules, keep_anomalies, keep_facts, settle
from hub.matches.model import EventKind, MatchOutcome, MatchState
from hub.matches.signoff import signoff
from hub.rules.base import Anomaly, Severity
from hub.rules.registry import SPORTS

Handler = Callable[[MatchState, dict[str, Any], int, float, str | None], MatchOutcome]
Row = tuple[int, str, float, str | None, Any]  # a match's log row: (offset, kind, at, actor, body)


def apply_event(
    match: MatchState, kind: str, body: dict[str, Any], offset: int, at: float, actor: str | None
) -> MatchOutcome:
    """Fold one match event; a rule violation becomes an anomaly, never an exception."""
    handler = HANDLERS.get(kind)
    if handler is None:
        return _unknown(match, kind, offset, at)
    return handler(match, body, offset, at, actor)


def fold_events(
    match: MatchState, rows: Sequence[Row], up_to: int | None = None, *, until_status_changes: bool = False
) -> tuple[MatchState, int]:
    """`apply_event` over a match's event rows `(offset, kind, at, actor, body)` in offset order, up to offset
    `up_to` (or, with `until_status_changes`, up to and including the first row that changes the match's
    status); returns the state and how many rows were folded.

    Replay's loop: the same `apply_event` the live hub runs, row by row; restarts are quick because they
    start from the latest snapshot and fold only the tail."""
    end = len(rows)
    if up_to is not None:
        end = next((i for i, row in enumerate(rows) if row[0] > up_to), end)
    i = 0
    while i < end:
        offset, kind, at, actor, body = rows[i]
        status = match.status
        match = apply_event(match, kind, body, offset, at, actor).state
        i += 1
        if until_status_changes and match.status is not status:
            break
    return match, i


def device_report(
    match: MatchState, body: dict[str, Any], offset: int, at: float, actor: str | None
) -> MatchOutcome:
    """A device's report through the sport's rules (its `join` for the report the hub joined the device at):
    nearly every event a match has."""
    rules = SPORTS[match.info.sport]
    return _through_rules(match, rules.report_from_dict(body["report"]), body, offset, at)


def tick(match: MatchState, body: dict[str, Any], offset: int, at: float, actor: str | None) -> MatchOutcome:
    """Time passed with no report, for rules that watch the clock."""
    make_tick = SPORTS[match.info.sport].tick
    assert make_tick is not None
    return _through_rules(match, make_tick(), body, offset, at)


def referee_input(
    match: MatchState, body: dict[str, Any], offset: int, at: float, actor: str | None
) -> MatchOutcome:
    """A time-out, card, expedite or score correction the referee records: through the rules, and audited."""
    outcome = _through_rules(
        match, SPORTS[match.info.sport].report_from_dict(body["input"]), body, offset, at
    )
    referee = audited(match.referee, EventKind.REFEREE_INPUT, body, offset, at, actor)
    return MatchOutcome(replace(outcome.state, referee=referee), outcome.facts, outcome.anomalies)


def _through_rules(
    match: MatchState, report: Any, body: dict[str, Any], offset: int, at: float
) -> MatchOutcome:
    sport_state, status, started_at, finished_at, facts, anomalies = fold_rules(match, report, body, at)
    state = MatchState(  # positional, not `settle`'s `replace`: this is the path every device report takes
        match.info,
        sport_state,
        status,
        offset,
        at,
        started_at,
        finished_at,
        match.confirmed_by,
        match.confirmed_at,
        keep_anomalies(match.anomalies, facts, anomalies, offset, at),
        keep_facts(match.facts, facts, offset, at),
        match.referee,  # carried on by reference
    )
    return MatchOutcome(state, facts, anomalies)


def anomaly(
    match: MatchState, body: dict[str, Any], offset: int, at: float, actor: str | None
) -> MatchOutcome:
    """An anomaly the hub raised outside the rules (a device gap, a clash), as logged."""
    raised = Anomaly(
        body["code"], Severity(body["severity"]), body["message_en"], body["message_tr"], body["data"]
    )
    return settle(match, offset, at, (), (raised,))


def _unknown(match: MatchState, kind: str, offset: int, at: float) -> MatchOutcome:
    unknown = Anomaly(
        "log.unknown_event",
        Severity.ERROR,
        f"The log holds an event of unknown kind {kind!r}; it was kept and skipped.",
        f"Kayıtta bilinmeyen türde bir olay var ({kind!r}); saklandı ve atlandı.",
    )
    return settle(match, offset, at, (), (unknown,))


HANDLERS: dict[str, Handler] = {
    EventKind.DEVICE_REPORT.value: device_report,
    EventKind.ANOMALY.value: anomaly,
    EventKind.TICK.value: tick,
    EventKind.REFEREE_INPUT.value: referee_input,
    EventKind.REFEREE_CONFIRM.value: actions.confirm,
    EventKind.REFEREE_ANOMALY.value: actions.anomaly,
    EventKind.REFEREE_RESULT.value: actions.result,
    EventKind.REFEREE_PENALTY.value: actions.penalty,
    EventKind.REFEREE_FORFEIT.value: actions.forfeit,
    EventKind.REFEREE_APPEAL.value: actions.appeal,
    EventKind.REFEREE_DECISION.value: actions.decision,
    EventKind.LOCK.value: actions.lock,
    EventKind.SIGNOFF.value: signoff,
    EventKind.REFEREE_SCORED_BY.value: actions.scored_by,
}
