"""The match reducer's dispatch: one handler for every event kind the log holds, and a kind it does not know
kept as an anomaly, never an exception."""

from __future__ import annotations

from hub.matches import EventKind, MatchInfo, MatchStatus, apply_event, new_match
from hub.matches.reducer import HANDLERS


def test_every_event_kind_has_its_handler() -> None:
    assert set(HANDLERS) == {kind.value for kind in EventKind}


def test_an_unknown_kind_is_an_anomaly_and_changes_nothing_else() -> None:
    match = new_match(MatchInfo("M", "tabletennis", "T1"))
    outcome = apply_event(match, "no.such.kind", {}, 7, 12.5, None)
    assert [a.code for a in outcome.anomalies] == ["log.unknown_event"]
    state = outcome.state
    assert (state.version, state.updated_at, state.status) == (7, 12.5, MatchStatus.SCHEDULED)
    assert [a.id for a in state.anomalies] == ["7.0"]
    assert state.sport_state == match.sport_state and state.referee == match.referee and not state.facts
