"""The pure table-tennis match simulator: ITTF scoring, game changes and service order."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardcast_sim.tabletennis import TableTennisMatchSim
from devices.observations import ScoreboardState


def play_out(sim: TableTennisMatchSim) -> list[ScoreboardState]:
    shown = [sim.state]
    while not sim.finished:
        shown.append(sim.next_rally())
    return shown


def games_by_index(shown: list[ScoreboardState]) -> dict[int, list[ScoreboardState]]:
    """Every display of each game, from 0-0 to its last point, keyed by the game's index."""
    games: dict[int, list[ScoreboardState]] = {}
    for state in shown:
        if state.points != (0, 0) or sum(state.games) not in games:
            games.setdefault(sum(state.games), []).append(state)
    return games


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([1, 3, 5, 7]), st.sampled_from([0, 1]))
def test_a_match_ends_with_a_valid_best_of_result(seed: int, best_of: int, first_server: int) -> None:
    sim = TableTennisMatchSim(seed, best_of=best_of, first_server=first_server)
    final = play_out(sim)[-1]
    needed = best_of // 2 + 1
    assert max(final.games) == needed and min(final.games) < needed
    assert len(final.game_scores) == sum(final.games)
    assert final.points == (0, 0) and final.server is None
    won = [0 if a > b else 1 for a, b in final.game_scores]
    assert (won.count(0), won.count(1)) == final.games
    assert won[-1] == sim.winner


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([0, 1]))
def test_each_game_ends_at_11_or_more_with_2_clear(seed: int, first_server: int) -> None:
    for a, b in play_out(TableTennisMatchSim(seed, first_server=first_server))[-1].game_scores:
        assert max(a, b) >= 11 and abs(a - b) >= 2
        if max(a, b) > 11:
            assert abs(a - b) == 2, (a, b)  # past 11 only by deuce, so exactly 2 clear


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32))
def test_each_rally_adds_one_point_and_a_game_end_is_shown_before_the_next_game(seed: int) -> None:
    shown = play_out(TableTennisMatchSim(seed))
    for before, after in itertools.pairwise(shown):
        if after.points == (0, 0):  # the display turned to the next game
            assert sum(after.games) == sum(before.games) + 1
            assert after.game_scores == (*before.game_scores, before.points)
        else:
            assert after.games == before.games
            assert sorted(after.points[i] - before.points[i] for i in (0, 1)) == [0, 1]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([0, 1]))
def test_server_alternates_every_2_points_and_every_point_from_10_all(seed: int, first_server: int) -> None:
    match_display = play_out(TableTennisMatchSim(seed, first_server=first_server))
    assert match_display[-1].server is None  # the final result display has no server
    games = games_by_index(match_display[:-1])
    for index, states in games.items():
        assert states[0].points == (0, 0)
        game_first_server = first_server if index % 2 == 0 else 1 - first_server
        assert states[0].server == game_first_server
        for before, after in itertools.pairwise(states):
            played = sum(after.points)
            expected_change = played % 2 == 0 or min(after.points) >= 10
            assert (after.server != before.server) == expected_change, (index, before, after)


def test_the_first_server_of_a_game_receives_first_in_the_next() -> None:
    games = games_by_index(play_out(TableTennisMatchSim(3, first_server=1))[:-1])
    first_servers = [games[index][0].server for index in sorted(games)]
    assert len(first_servers) >= 3
    assert first_servers == [1, 0, 1, 0, 1][: len(first_servers)]


def test_same_seed_plays_the_same_match() -> None:
    assert play_out(TableTennisMatchSim(11)) == play_out(TableTennisMatchSim(11))
    assert play_out(TableTennisMatchSim(11)) != play_out(TableTennisMatchSim(12))


def test_a_match_can_resume_from_a_shown_state() -> None:
    start = ScoreboardState(points=(10, 10), games=(2, 1), game_scores=((11, 5), (9, 11), (11, 7)))
    sim = TableTennisMatchSim(5, start=start)
    assert sim.state.points == (10, 10) and sim.state.server == 1  # game 4: side 1 served first
    shown = play_out(sim)
    assert shown[-1].game_scores[:3] == start.game_scores
    assert max(shown[-1].games) == 3


def test_a_resume_state_must_be_consistent() -> None:
    with pytest.raises(ValueError, match="2 games won but 1 finished game scores"):
        TableTennisMatchSim(1, start=ScoreboardState(points=(0, 0), games=(1, 1), game_scores=((11, 3),)))


def test_no_rally_after_the_match() -> None:
    sim = TableTennisMatchSim(1, best_of=1)
    play_out(sim)
    with pytest.raises(RuntimeError, match="the match is over"):
        sim.next_rally()
