"""What every kind of match event does the same way: the sport's rules folded in, the event's facts and
anomalies kept on the match, and the new state stamped with the event's offset and time."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hub.matches.model import (
    MAX_KEPT_ANOMALIES,
    MAX_KEPT_FACTS,
    MAX_KEPT_OCCURRENCES,
    RULES_ACTOR,
    ActionRecord,
    AnomalyRecord,
    AnomalyState,
    FactRecord,
    MatchOutcome,
    MatchState,
    MatchStatus,
    Occurrence,
    RefereeRecord,
)
from hub.matches.model import WAITING as _WAITING
from hub.matches.naming import status_name
from hub.rules.base import Anomaly, Fact, Severity
from hub.rules.registry import SPORTS

CLOSED_TO_REPORTS = (MatchStatus.OFFICIAL, MatchStatus.FORFEIT, MatchStatus.ABANDONED)


def fold_rules(
    match: MatchState, report: Any, body: dict[str, Any], at: float
) -> tuple[Any, MatchStatus, float | None, float | None, tuple[Fact, ...], tuple[Anomaly, ...]]:
    """One input through the sport's rules: (sport state, status, started_at, finished_at, facts, anomalies).

    The first input makes a scheduled match live, and the rules saying it is over finish it (and saying it is
    not, after an undo of its last point, make it live again, unless a referee wrote its result). A match closed
    to reports keeps its state; a report that changes something there is a `match.report_after_close`
    anomaly (a board repeating its final display is no news). A device's first report after the hub joined
    it (the body's `"joined": true`, set by `hub.ingest.sink`) goes through the sport's `join`, not `apply`."""
    rules = SPORTS[match.info.sport]
    outcome = (rules.join if body.get("joined") is True else rules.apply)(match.sport_state, report, at)
    status = match.status
    if status in CLOSED_TO_REPORTS:
        after_close: tuple[Anomaly, ...] = ()
        if outcome.facts or outcome.anomalies:
            after_close = (_report_after_close(status, body),)
        return match.sport_state, status, match.started_at, match.finished_at, (), after_close
    started_at, finished_at = match.started_at, match.finished_at
    if status is MatchStatus.SCHEDULED:
        status, started_at = MatchStatus.LIVE, at
    over = rules.is_over(outcome.state)
    if status is MatchStatus.LIVE and over:
        status, finished_at = MatchStatus.FINISHED, at
    elif (
        status is MatchStatus.FINISHED
        and not over
        and match.result is None
        and rules.is_over(match.sport_state)
    ):
        status, finished_at = MatchStatus.LIVE, None  # the winning point taken back: the match goes on
    return outcome.state, status, started_at, finished_at, outcome.facts, outcome.anomalies


def _report_after_close(status: MatchStatus, body: dict[str, Any]) -> Anomaly:
    return Anomaly(
        "match.report_after_close",
        Severity.WARNING,
        f"The device reported a change after the match was {status_name(status)[0]}; the result was not changed.",
        f"Cihaz, maç kapandıktan ({status_name(status)[1]}) sonra değişiklik bildirdi; sonuç değiştirilmedi.",
        {"device_id": body.get("device_id")},
    )


def settle(
    match: MatchState,
    offset: int,
    at: float,
    facts: tuple[Fact, ...] = (),
    raised: tuple[Anomaly, ...] = (),
    **changes: Any,
) -> MatchOutcome:
    """The outcome of an event: `match` with `changes` (MatchState fields; `anomalies` the records as the event
    left them) made, the event's facts and the anomalies it `raised` kept, and its offset and time as the
    state's version and update time."""
    kept = changes.pop("anomalies", match.anomalies)
    state = replace(
        match,
        version=offset,
        updated_at=at,
        anomalies=keep_anomalies(kept, facts, raised, offset, at),
        facts=keep_facts(match.facts, facts, offset, at),
        **changes,
    )
    return MatchOutcome(state, facts, raised)


def audited(
    referee: RefereeRecord,
    kind: str,
    body: dict[str, Any],
    offset: int,
    at: float,
    actor: str | None,
    **changes: Any,
) -> RefereeRecord:
    """The referee record after a referee (or hub) action: `changes` made and the action added to the audit."""
    action = ActionRecord(offset, at, actor, str(kind), body)
    return replace(referee, actions=(*referee.actions, action), **changes)


def keep_anomalies(
    kept: tuple[AnomalyRecord, ...],
    facts: tuple[Fact, ...],
    anomalies: tuple[Anomaly, ...],
    offset: int,
    at: float,
) -> tuple[AnomalyRecord, ...]:
    """A match's anomalies after an event: those its facts resolved marked so, and each new anomaly one more
    occurrence of the same problem still waiting, or a new item (the newest MAX_KEPT_ANOMALIES kept)."""
    if facts and kept:
        kept = _resolved_by_rules(kept, facts, at)
    for i, a in enumerate(anomalies):
        kept = _seen(
            kept,
            AnomalyRecord(
                a.code,
                a.severity,
                a.message_en,
                a.message_tr,
                offset,
                at,
                a.data,
                i,
                last_offset=offset,
                last_at=at,
            ),
        )
    return kept


def _seen(kept: tuple[AnomalyRecord, ...], new: AnomalyRecord) -> tuple[AnomalyRecord, ...]:
    """`kept` with `new` counted on the waiting item of the same problem, or added as an item of its own."""
    for i in range(len(kept) - 1, -1, -1):
        item = kept[i]
        if item.state in _WAITING and item.key == new.key:
            return (*kept[:i], repeated(item, new), *kept[i + 1 :])
    return (*kept, new)[-MAX_KEPT_ANOMALIES:]


def repeated(item: AnomalyRecord, new: AnomalyRecord) -> AnomalyRecord:
    """`item` seen once more, as `new` shows it: counted, its latest time and evidence kept."""
    seen = Occurrence(new.offset, new.at, new.message_en, new.message_tr, new.data)
    return replace(
        item,
        count=item.count + 1,
        last_offset=new.offset,
        last_at=new.at,
        occurrences=(*item.occurrences, seen)[-MAX_KEPT_OCCURRENCES:],
    )


def keep_facts(
    kept: tuple[FactRecord, ...], facts: tuple[Fact, ...], offset: int, at: float
) -> tuple[FactRecord, ...]:
    """A match's facts after an event: its new ones added, the newest MAX_KEPT_FACTS kept."""
    if not facts:
        return kept
    kept += tuple([FactRecord(f.kind, f.data, offset, at) for f in facts])
    return kept[-MAX_KEPT_FACTS:] if len(kept) > MAX_KEPT_FACTS else kept


def handled(a: AnomalyRecord, state: AnomalyState, by: str | None, at: float, reason: str) -> AnomalyRecord:
    """Anomaly `a` taken to `state` by `by` at `at`, for `reason`."""
    return replace(a, state=state, handled_by=by, handled_at=at, reason=reason)


def _resolved_by_rules(
    anomalies: tuple[AnomalyRecord, ...], facts: tuple[Fact, ...], at: float
) -> tuple[AnomalyRecord, ...]:
    """A rules fact `anomaly_resolved` {"code": …, "side": …} clears the latest item of that code still
    waiting (of that side, where the fact names one: one side's correction is not the other's)."""
    for fact in facts:
        if fact.kind != "anomaly_resolved" or "anomaly" in fact.data:  # a referee's names its item: done
            continue
        code, side = fact.data.get("code"), fact.data.get("side")
        for i in range(len(anomalies) - 1, -1, -1):
            a = anomalies[i]
            if a.code == code and a.state in _WAITING and (side is None or a.data.get("side") == side):
                how = str(fact.data.get("how", "by the rules"))
                anomalies = (
                    *anomalies[:i],
                    handled(a, AnomalyState.RESOLVED, RULES_ACTOR, at, how),
                    *anomalies[i + 1 :],
                )
                break
    return anomalies
