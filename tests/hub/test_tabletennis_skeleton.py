"""Table-tennis score and games (ITTF 2.11, 2.12) folded from scoreboard displays."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from devices.observations import ScoreboardState
from devices.simulators.tabletennis import TableTennisMatchSim
from hub.rules import tabletennis
from hub.rules.tabletennis import game_over, initial


def show(points: tuple[int, int], games: tuple[int, int] = (0, 0)) -> ScoreboardState:
    return ScoreboardState(points=points, games=games)


def fold(*reports: ScoreboardState, best_of: int = 5):
    state, facts, anomalies = initial(best_of), [], []
    for i, report in enumerate(reports):
        outcome = tabletennis.apply(state, report, float(i))
        state = outcome.state
        facts += outcome.facts
        anomalies += outcome.anomalies
    return state, facts, anomalies


def test_a_game_is_won_at_11_or_by_two_after_10_all() -> None:
    assert game_over((11, 9))
    assert not game_over((11, 10))
    assert not game_over((10, 10))
    assert game_over((14, 12))
    assert not game_over((10, 8))


def test_one_point_more_is_a_rally() -> None:
    state, facts, anomalies = fold(show((0, 0)), show((1, 0)), show((1, 1)))
    assert state.points == (1, 1)
    assert [f.data["side"] for f in facts if f.kind == "point"] == [0, 1]
    assert anomalies == []


def test_a_jump_of_two_points_is_kept_and_flagged() -> None:
    state, _, anomalies = fold(show((0, 0)), show((3, 0)))
    assert state.points == (3, 0)  # what the device showed stands
    assert [a.code for a in anomalies] == ["tt.score_jump"]
    assert "0-0" in anomalies[0].message_en and "3-0" in anomalies[0].message_tr


def test_the_next_game_records_the_finished_game_score() -> None:
    state, facts, anomalies = fold(show((10, 8)), show((11, 8)), show((0, 0), (1, 0)))
    assert state.games == (1, 0)
    assert state.game_scores == ((11, 8),)
    assert any(f.kind == "game" and f.data["score"] == [11, 8] for f in facts)
    assert [a.code for a in anomalies] == ["tt.score_jump"]  # 0-0 to 10-8 in the first report


def test_a_game_given_at_a_score_that_does_not_win_is_flagged() -> None:
    _, _, anomalies = fold(show((0, 0)), show((1, 0)), show((0, 0), (1, 0)))
    assert [a.code for a in anomalies] == ["tt.game_end_unexplained"]


def test_best_of_five_is_won_with_three_games() -> None:
    state, facts, _ = fold(show((0, 0), (2, 1)), show((11, 3), (2, 1)), best_of=5)
    assert state.winner == 0
    assert [f.kind for f in facts][-1] == "match"


@given(seed=st.integers(0, 2**32 - 1), best_of=st.sampled_from([3, 5, 7]))
def test_a_simulated_match_folds_without_anomalies_to_the_simulators_winner(seed: int, best_of: int) -> None:
    sim = TableTennisMatchSim(seed, best_of)
    reports = [sim.state]
    while not sim.finished:
        reports.append(sim.next_rally())
    state, facts, anomalies = fold(*reports, best_of=best_of)
    assert anomalies == []
    assert state.winner == sim.winner
    assert sum(1 for f in facts if f.kind == "match") == 1


def test_state_round_trips_through_plain_data() -> None:
    state, _, _ = fold(show((0, 0)), show((11, 9)), show((0, 0), (1, 0)), show((0, 1), (1, 0)))
    assert tabletennis.from_dict(tabletennis.to_dict(state)) == state
