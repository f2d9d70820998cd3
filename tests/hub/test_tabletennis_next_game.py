"""The table-tennis view's `next_game`: once a game is won, the game its next point will open, as the rules
open it. Checked against the rules themselves: the next point, folded, lands in that game, at those ends,
served and received as said."""

from __future__ import annotations

import random

import pytest

from hub.rules import tabletennis as tt
from hub.rules.tabletennis.views import view


@pytest.mark.parametrize("doubles", [False, True])
@pytest.mark.parametrize("seed", range(12))
def test_the_game_announced_is_the_game_the_next_point_opens(doubles: bool, seed: int) -> None:
    rng = random.Random(seed)
    state = tt.initial(tt.TableTennisConfig.from_names(5, doubles, None, None, "ittf"))
    announced = 0
    at = 0.0
    while state.winner is None:
        shown = view(state)["next_game"]
        side = 0 if rng.random() < 0.5 else 1
        state = tt.apply(state, tt.UmpirePoint(side), at := at + 1).state
        if shown is None:
            continue
        announced += 1
        opened = state.points_log[-1]
        assert state.game_number == shown["game"] and list(state.games) == shown["games"]
        assert state.game_scores[-1] == tuple(shown["won"])
        assert state.ends == shown["ends"]
        assert opened.server == shown["server"]
        if doubles:
            assert opened.server_player == shown["server_player"]
    assert announced >= 2  # every game but the last was announced before its next point
    assert view(state)["next_game"] is None  # the match is over: no game follows
