"""Backgammon games scored by hand (an umpire's pad, a referee's input): each game's winner, how and cube; the
match score, the Crawford game and the match's end follow from the rules; a cube in the Crawford game and a game
after the match are flagged and not counted; the `.mat` export writes a resigned game as resigned."""

from __future__ import annotations

from typing import Any

import pytest

from devices.observations import DeviceEvent
from hub.matches import EventKind, MatchInfo, apply_event, new_match
from hub.referee import ActionInvalid, check_input
from hub.rules.backgammon.export import match_to_mat
from hub.rules.backgammon.score import crawford_next
from hub.rules.registry import BACKGAMMON


def _game(winner: int, value: int = 1, cube: int = 1, resigned: bool = False) -> dict[str, Any]:
    """A pad's tap as the log keeps it (the sport's encoding of the device event)."""
    return BACKGAMMON.input_to_dict(
        DeviceEvent("game", {"winner": winner, "value": value, "cube": cube, "resigned": resigned})
    )


class Match:
    """A 5-point match folded event by event through the hub's match reducer, as the hub runs it."""

    def __init__(self) -> None:
        info = MatchInfo("BG-1", "backgammon", "T5", 1, ("Hakan", "Levent"), length=5)
        self.state = new_match(info)
        self.offset = 0
        self.anomalies: list[str] = []

    def __call__(self, report: dict[str, Any]) -> None:
        self.offset += 1
        body = {"device_id": "pad-x", "boot_epoch": 1, "seq": self.offset, "report": report}
        outcome = apply_event(
            self.state, EventKind.DEVICE_REPORT, body, self.offset, 100.0 + self.offset, None
        )
        self.state = outcome.state
        self.anomalies += [a.code for a in outcome.anomalies]


def test_a_match_to_five_scored_game_by_game_with_a_gammon_a_resignation_and_crawford() -> None:
    m = Match()
    m(_game(0))  # A a single game: 1-0
    m(_game(1, value=2, cube=2))  # B a gammon at 2: 1-4, B one away
    assert m.state.sport_state.score == (1, 4) and crawford_next(m.state.sport_state)
    m(_game(0, cube=2))  # a cube in the Crawford game: flagged, not counted
    assert m.anomalies == ["bg.crawford_double"] and m.state.sport_state.score == (1, 4)
    m(_game(0, value=2))  # A a gammon in the Crawford game: 3-4, Crawford over
    assert m.state.sport_state.score == (3, 4) and not crawford_next(m.state.sport_state)
    assert [g.crawford for g in m.state.sport_state.games] == [False, False, True]
    m(_game(1, value=1, cube=2, resigned=True))  # A resigns a single game at 2: B wins 3-6
    assert m.state.status.value == "finished" and m.state.sport_state.score == (3, 6)
    assert m.state.winner == 1
    games = m.state.sport_state.games
    assert [(g.winner, g.points, g.resigned) for g in games] == [(0, 1, 0), (1, 4, 0), (0, 2, 0), (1, 2, 1)]
    m(_game(0))
    assert m.anomalies[-1] == "bg.game_after_match" and m.state.sport_state.score == (3, 6)
    assert [(a.kind, a.value) for a in games[1].actions] == [("cube", 2)]  # a gammon at 2, not a single at 4
    assert [(a.kind, a.side, a.value) for a in games[3].actions] == [("cube", 1, 2), ("resign", 0, 1)]
    mat = match_to_mat(m.state.sport_state, ("Hakan", "Levent"))
    assert "Wins 2 points" in mat and "5 point match" in mat


def test_a_tap_the_rules_cannot_read_is_kept_and_changes_nothing() -> None:
    m = Match()
    for data in (
        {"winner": 2, "value": 1},
        {"winner": 0, "value": 4},
        {"winner": 0, "value": 1, "cube": 3},
        {},
    ):
        report = BACKGAMMON.input_to_dict(DeviceEvent("game", data))
        assert report["type"] == "event" and report["data"] == data  # what the pad sent, as sent
        m(report)
    assert m.state.sport_state.score == (0, 0) and m.anomalies == []


def test_a_referee_enters_a_game_and_a_wrong_value_is_refused_naming_the_field() -> None:
    state = new_match(MatchInfo("BG-1", "backgammon", "T5", 1, ("Hakan", "Levent"), length=5))
    event = check_input(state, {"type": "game", "winner": 1, "value": 3, "cube": 4})
    assert event.body["input"] == {"type": "game", "winner": 1, "value": 3, "cube": 4, "resigned": False}
    with pytest.raises(ActionInvalid, match="cube"):
        check_input(state, {"type": "game", "winner": 1, "value": 1, "cube": 3})
