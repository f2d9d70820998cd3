"""A table-tennis view's rally log is built a point at a time and reused, yet always equals the log shown:
states viewed in any order, a point taken back, a log that differs before its end, many matches at once."""

from __future__ import annotations

import random

from msgspec.structs import replace

from benchmarks.common import tt_rallies
from hub import growing
from hub.rules import tabletennis as tt
from hub.rules.tabletennis import views


def _states(seed: int) -> list[tt.TableTennisState]:
    state = tt.initial(tt.TableTennisConfig(best_of=5))
    states = [state]
    for at, shown in enumerate(tt_rallies(seed, 5)):
        state = tt.apply(state, shown, float(at)).state
        states.append(state)
    return states


def _built(state: tt.TableTennisState) -> list[dict]:
    return [views._point_view(p) for p in state.points_log]


def test_views_in_any_order_show_exactly_their_states_log() -> None:
    states = _states(3)
    assert len(states[-1].points_log) > 40
    rng = random.Random(5)
    for state in states + states[::-1] + rng.sample(states, len(states)):
        assert tt.view(state)["points_log"] == _built(state)


def test_a_log_that_differs_before_its_end_is_built_again() -> None:
    states = _states(4)
    full = states[-1]
    tt.view(full)
    changed = (*full.points_log[:10], tt.PointRecord(9, (9, 9), 1, 0, None, 1.5), *full.points_log[11:])
    other = replace(full, points_log=changed)
    assert tt.view(other)["points_log"][10] == {
        "game": 9,
        "points": [9, 9],
        "side": 1,
        "server": 0,
        "server_player": None,
        "at": 1.5,
    }
    assert tt.view(other)["points_log"] == _built(other)


def test_a_view_is_a_list_of_its_own_and_many_matches_stay_correct() -> None:
    matches = [_states(seed) for seed in range(growing.KEPT + 20)]
    for states in matches:
        tt.view(states[len(states) // 2])
    for states in matches:  # the oldest entries were dropped: built again
        shown = tt.view(states[-1])["points_log"]
        assert shown == _built(states[-1])
        shown.clear()
        assert tt.view(states[-1])["points_log"] == _built(states[-1])
    assert len(views._points_log_view) <= growing.KEPT
