"""Exports of a table-tennis match: the compact game notation and the match card with every point."""

from __future__ import annotations

from hub.rules import tabletennis as tt
from hub.rules.tabletennis.export import compact, match_card


def play(config: tt.TableTennisConfig, *games: tuple[int, int]) -> tt.TableTennisState:
    """Each game scored by the umpire: the sides alternate up to the loser's points, then the winner runs."""
    state = tt.initial(config)
    at = 0.0
    for a, b in games:
        winner, loser = (0, 1) if a > b else (1, 0)
        order = [loser, winner] * min(a, b) + [winner] * (max(a, b) - min(a, b))
        for side in order:
            at += 5.0
            outcome = tt.apply(state, tt.UmpirePoint(side), at)
            assert outcome.anomalies == ()
            state = outcome.state
    return state


def test_compact_notation_writes_the_losers_points_negative_when_b_won() -> None:
    state = play(tt.TableTennisConfig(best_of=5, first_server=0), (11, 7), (4, 11), (11, 8), (11, 5))
    assert state.winner == 0
    assert compact(state) == "7/-4/8/5"


def test_compact_notation_of_deuce_games_and_a_match_in_progress() -> None:
    state = play(tt.TableTennisConfig(best_of=5, first_server=1), (12, 14), (11, 0))
    assert compact(state) == "-12/0"


def test_the_match_card_holds_every_point_with_its_server() -> None:
    state = play(tt.TableTennisConfig(best_of=3, first_server=0), (11, 3), (5, 11), (11, 9))
    card = match_card(state, ["Ayşe", "Zeynep"])
    assert card["players"] == {"A": "Ayşe", "B": "Zeynep"}
    assert card["result"] == {
        "games": [2, 1],
        "scores": [[11, 3], [5, 11], [11, 9]],
        "compact": "3/-5/9",
        "winner": 0,
    }
    assert [len(g["points"]) for g in card["games"]] == [14, 16, 20]
    first = card["games"][0]["points"]
    assert [(p["side"], p["server"]) for p in first[:6]] == [(1, 0), (0, 0), (1, 1), (0, 1), (1, 0), (0, 0)]
    assert first[-1]["score"] == [11, 3]
    assert card["games"][1]["points"][0]["server"] == 1  # B serves first in game 2
    assert all({"score", "side", "server", "at"} <= p.keys() for g in card["games"] for p in g["points"])


def test_a_doubles_card_names_the_server_player() -> None:
    config = tt.TableTennisConfig.from_names(3, True, "B2", "A1")
    state = play(config, (11, 2))
    card = match_card(state, ["A1 name", "A2 name", "B1 name", "B2 name"])
    assert card["first_server"] == "B2" and card["first_receiver"] == "A1"
    servers = [p["server_player"] for p in card["games"][0]["points"]]
    assert servers[:8] == ["B2", "B2", "A1", "A1", "B1", "B1", "A2", "A2"]
