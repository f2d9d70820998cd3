"""Replay's shortcut: a match's log rows folded with runs of plain rallies taken in one step each.

Where the sport offers it (`SportRules.fold_reports`), a run of device reports that are each one plain rally
on a live match is folded in one step and a single state is built for the run; every other row goes through
the reducer's `apply_event` (whose `device_report` takes a live report through the same `fold_reports` when
it is one plain rally). Only `hub.matches.reducer.fold_events` calls this module, and the state is the one the
rules' `apply` gives row by row (`tests/hub/test_matches_fastpath.py` checks both on generated noisy matches).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from hub.matches.model import MAX_KEPT_FACTS, FactRecord, MatchOutcome, MatchState, MatchStatus

FoldReports = Callable[[Any, Sequence[tuple[Any, ...]], int, int], tuple[Any, int, Callable[[int], Any]]]
Apply = Callable[[MatchState, str, dict[str, Any], int, float, str | None], MatchOutcome]


def fold_with_runs(
    match: MatchState,
    rows: Sequence[tuple[int, str, float, str | None, Any]],
    end: int,
    until_status_changes: bool,
    fold_reports: FoldReports,
    apply_event: Apply,
) -> tuple[MatchState, int]:
    """`hub.matches.reducer.fold_events` over `rows[:end]`, with runs of rallies through `fold_reports`.

    `apply_event` only ever adds to a match's kept facts (and keeps the newest MAX_KEPT_FACTS), and nothing it
    does depends on them: so the fold runs with none, gathers each step's facts here, oldest first, as built
    records or as a run's facts (with its first row), and builds only the newest at the end."""
    gathered: list[tuple[Any, ...]] = [(match.facts,)]
    match = _with_facts(match, ())
    # a report the hub joined a device at goes through the sport's `join` (`apply_event`), never in a run
    joins = [n for n in range(end) if type(body := rows[n][4]) is dict and "joined" in body]
    joins.append(end)
    next_join = 0
    i = 0
    while i < end:
        while joins[next_join] < i:
            next_join += 1
        if match.status is MatchStatus.LIVE and i < joins[next_join]:
            sport_state, folded, run_facts = fold_reports(match.sport_state, rows, i, joins[next_join])
            if folded:
                gathered.append((run_facts, i))
                i += folded
                match = _after_run(match, sport_state, rows[i - 1])
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
    return _with_facts(match, _newest_facts(gathered, rows)), end


def _after_run(match: MatchState, sport_state: Any, last: tuple[Any, ...]) -> MatchState:
    """A run decides no match and raises no anomaly: status, anomalies and the rest stand."""
    offset, _kind, at, _actor, _body = last
    return after_rallies(match, sport_state, offset, at, ())


def after_rallies(
    match: MatchState, sport_state: Any, offset: int, at: float, facts: tuple[FactRecord, ...]
) -> MatchState:
    """A live match after plain rallies up to `offset`: its status and anomalies stand (a rally the shortcut
    takes decides no match and raises none), its facts are `facts`."""
    return MatchState(
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
        facts,
        match.referee,
    )


def _newest_facts(
    gathered: list[tuple[Any, ...]], rows: Sequence[tuple[int, str, float, str | None, Any]]
) -> tuple[FactRecord, ...]:
    """The newest MAX_KEPT_FACTS of the facts gathered, as records, oldest first."""
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
    return tuple(f for records in reversed(newest) for f in records)


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
