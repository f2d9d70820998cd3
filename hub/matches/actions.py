"""What each referee (or hub) action does to a match: confirm, anomaly handling, a corrected result, a penalty,
a forfeit, an appeal and its decision, the round lock. `hub/referee/` checks an action before it is logged;
here it is only folded, and every one is added to the match's audit (`RefereeRecord.actions`)."""

from __future__ import annotations

from typing import Any

from hub.matches.effects import audited, fold_rules, handled, settle
from hub.matches.model import (
    AnomalyState,
    AppealRecord,
    EventKind,
    MatchOutcome,
    MatchState,
    MatchStatus,
    PenaltyRecord,
    ResultRecord,
    ScoredBy,
)
from hub.rules.base import Anomaly, Fact, Severity
from hub.rules.registry import SPORTS

_ENDS_UNPLAYED = (MatchStatus.SCHEDULED, MatchStatus.LIVE, MatchStatus.FORFEIT, MatchStatus.ABANDONED)


def confirm(
    match: MatchState, body: dict[str, Any], offset: int, at: float, actor: str | None
) -> MatchOutcome:
    """A referee confirms the result: the match is official."""
    referee = audited(match.referee, EventKind.REFEREE_CONFIRM, body, offset, at, actor)
    facts = (Fact("confirmed", {"by": actor}),)
    return settle(
        match,
        offset,
        at,
        facts,
        status=MatchStatus.OFFICIAL,
        confirmed_by=actor,
        confirmed_at=at,
        referee=referee,
    )


def anomaly(
    match: MatchState, body: dict[str, Any], offset: int, at: float, actor: str | None
) -> MatchOutcome:
    """Anomaly items acknowledged, resolved or dismissed (`anomaly`: one; `anomalies`: several, for one
    reason); an item the match no longer holds is itself an anomaly."""
    referee = audited(match.referee, EventKind.REFEREE_ANOMALY, body, offset, at, actor)
    wanted = body["anomalies"] if "anomalies" in body else [body["anomaly"]]
    state = AnomalyState(body["state"])
    kept, facts, unknown = list(match.anomalies), [], []
    for item_id in wanted:
        found = next((i for i, a in enumerate(kept) if a.id == item_id), None)
        if found is None:
            unknown.append(_no_such_anomaly(item_id, state))
            continue
        a = kept[found]
        kept[found] = handled(a, state, actor, at, body.get("reason", ""))
        facts.append(Fact(f"anomaly_{state.value}", {"anomaly": item_id, "code": a.code, "by": actor}))
    return settle(match, offset, at, tuple(facts), tuple(unknown), anomalies=tuple(kept), referee=referee)


def _no_such_anomaly(item_id: str, state: AnomalyState) -> Anomaly:
    return Anomaly(
        "log.unknown_anomaly",
        Severity.WARNING,
        f"A referee marked anomaly {item_id} {state.value}, but the match no longer holds it.",
        f"Hakem {item_id} numaralı anormalliği işaretledi, ancak maçta artık bulunmuyor.",
        {"anomaly": item_id},
    )


def result(
    match: MatchState, body: dict[str, Any], offset: int, at: float, actor: str | None
) -> MatchOutcome:
    """A corrected result: it supersedes what the devices showed, and finishes a match not played out."""
    written = result_record(body, "correction", actor, offset, at)
    referee = audited(match.referee, EventKind.REFEREE_RESULT, body, offset, at, actor, result=written)
    status = MatchStatus.FINISHED if match.status in _ENDS_UNPLAYED else match.status
    finished_at = match.finished_at if match.finished_at is not None else at
    facts: tuple[Fact, ...] = (
        Fact("result_corrected", {"winner": written.winner, "score": list(written.score)}),
    )
    rules = match.info.rules
    stands_for = rules.result_input(match.sport_state, written.score)
    sport_state = match.sport_state
    if stands_for is not None:  # the rules reach the corrected score too: stored and served alike
        outcome = rules.apply(sport_state, stands_for, at)
        sport_state, facts = outcome.state, (*facts, *outcome.facts)
    return settle(
        match,
        offset,
        at,
        facts,
        status=status,
        finished_at=finished_at,
        referee=referee,
        sport_state=sport_state,
    )


def penalty(
    match: MatchState, body: dict[str, Any], offset: int, at: float, actor: str | None
) -> MatchOutcome:
    """A warning, a card or a game or match loss. With an `input` the rules count it too (a table-tennis card);
    with a `score` it is a match loss, written as a forfeit would be."""
    facts: tuple[Fact, ...] = ()
    anomalies: tuple[Anomaly, ...] = ()
    changes: dict[str, Any] = {}
    if body.get("input") is not None:
        report = SPORTS[match.info.sport].report_from_dict(body["input"])
        sport_state, status, started_at, finished_at, facts, anomalies = fold_rules(match, report, body, at)
        changes = {
            "sport_state": sport_state,
            "status": status,
            "started_at": started_at,
            "finished_at": finished_at,
        }
    side = body["side"]
    record = PenaltyRecord(side, body["penalty"], body.get("reason", ""), actor, offset, at)
    record_changes: dict[str, Any] = {"penalties": (*match.penalties, record)}
    facts = (Fact("penalty", {"side": side, "penalty": body["penalty"]}), *facts)
    if body.get("score") is not None:
        record_changes["result"] = result_record({**body, "winner": 1 - side}, "penalty", actor, offset, at)
        finished_at = changes.get("finished_at", match.finished_at)
        changes["status"] = MatchStatus.FORFEIT
        changes["finished_at"] = finished_at if finished_at is not None else at
    referee = audited(match.referee, EventKind.REFEREE_PENALTY, body, offset, at, actor, **record_changes)
    return settle(match, offset, at, facts, anomalies, referee=referee, **changes)


def forfeit(
    match: MatchState, body: dict[str, Any], offset: int, at: float, actor: str | None
) -> MatchOutcome:
    """The no-show (or the player who will not go on) loses."""
    written = result_record({**body, "winner": 1 - body["loser"]}, "forfeit", actor, offset, at)
    referee = audited(match.referee, EventKind.REFEREE_FORFEIT, body, offset, at, actor, result=written)
    finished_at = match.finished_at if match.finished_at is not None else at
    facts = (Fact("forfeit", {"loser": body["loser"], "score": list(written.score)}),)
    return settle(
        match, offset, at, facts, status=MatchStatus.FORFEIT, finished_at=finished_at, referee=referee
    )


def appeal(
    match: MatchState, body: dict[str, Any], offset: int, at: float, actor: str | None
) -> MatchOutcome:
    """An appeal opened within the window: the match is protested until the decision."""
    record = AppealRecord(body["appellant"], body.get("reason", ""), actor, offset, at, match.status)
    appeals = (*match.appeals, record)
    referee = audited(match.referee, EventKind.REFEREE_APPEAL, body, offset, at, actor, appeals=appeals)
    facts = (Fact("appeal", {"appellant": body["appellant"]}),)
    return settle(match, offset, at, facts, status=MatchStatus.PROTESTED, referee=referee)


def decision(
    match: MatchState, body: dict[str, Any], offset: int, at: float, actor: str | None
) -> MatchOutcome:
    """The decision on the open appeal: the match goes back to where it stood, or, upheld with a new score,
    that result is official at once (the chief referee's decision is final: the tournament rules
    §10)."""
    kind = EventKind.REFEREE_DECISION
    appealed = match.open_appeal
    if appealed is None:
        stray = Anomaly(
            "log.decision_without_appeal",
            Severity.WARNING,
            "The log holds an appeal decision with no open appeal; it was kept and skipped.",
            "Kayıtta açık itirazı olmayan bir itiraz kararı var; saklandı ve atlandı.",
        )
        referee = audited(match.referee, kind, body, offset, at, actor)
        return settle(match, offset, at, (), (stray,), referee=referee)
    said = body["decision"]
    decided = AppealRecord(
        appealed.appellant,
        appealed.reason,
        appealed.by,
        appealed.offset,
        appealed.at,
        appealed.status_before,
        said,
        body.get("reasoning", ""),
        actor,
        at,
    )
    record_changes: dict[str, Any] = {"appeals": (*match.appeals[:-1], decided)}
    changes: dict[str, Any] = {"status": appealed.status_before}
    if said == "upheld" and body.get("score") is not None:
        record_changes["result"] = result_record(body, "appeal", actor, offset, at)
        changes = {"status": MatchStatus.OFFICIAL, "confirmed_by": actor, "confirmed_at": at}
    referee = audited(match.referee, kind, body, offset, at, actor, **record_changes)
    facts = (Fact("appeal_decided", {"decision": said}),)
    return settle(match, offset, at, facts, referee=referee, **changes)


def lock(match: MatchState, body: dict[str, Any], offset: int, at: float, actor: str | None) -> MatchOutcome:
    """A match of the next round started: this result can no longer change (the first lock stands)."""
    locked_at = match.locked_at if match.locked_at is not None else at
    referee = audited(match.referee, EventKind.LOCK, body, offset, at, actor, locked_at=locked_at)
    facts = (Fact("locked", {"round": body.get("round"), "because": body.get("because")}),)
    return settle(match, offset, at, facts, referee=referee)


def scored_by(
    match: MatchState, body: dict[str, Any], offset: int, at: float, actor: str | None
) -> MatchOutcome:
    """A referee switched the table's scoring to its umpire, or back to its device: audited, and a fact."""
    referee = audited(match.referee, EventKind.REFEREE_SCORED_BY, body, offset, at, actor)
    facts = (Fact("scored_by", {"by": body["by"], "table": body["table"]}),)
    return settle(match, offset, at, facts, referee=referee)


def scored_by_of(match: MatchState) -> tuple[ScoredBy, float] | None:
    """The last switch of the table's scoring recorded on this match, and when; None if there was none."""
    switch = next((a for a in reversed(match.actions) if a.kind == EventKind.REFEREE_SCORED_BY), None)
    return None if switch is None else (ScoredBy(switch.body["by"]), switch.at)


def result_record(body: dict[str, Any], source: str, by: str | None, offset: int, at: float) -> ResultRecord:
    """A referee's result from an action's body (its `score`, `winner` and `reason`)."""
    a, b = body["score"]
    return ResultRecord(body.get("winner"), (a, b), source, body.get("reason", ""), by, offset, at)
