"""The table-tennis reducer's one-rally shortcut returns exactly what the full fold returns, on every input.

`tabletennis.apply` folds the commonest display (one point more, nothing else to say) directly and hands
anything else to `_apply_in_full`. Here both run on every input of generated matches, legal ones and ones
with a noisy board (wrong indicators, jumps, repeats, decreases, a stray expedite light, a wrong game
history, long gaps that make the expedite system due), and the outcomes (state, facts, anomalies) must be
equal. The shortcut must also be taken, or the comparison proves nothing.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_tabletennis_properties import Plan, config_for, plans, play

from devices.observations import ScoreboardState
from hub.rules import tabletennis as tt


def _noisy(item: object, rng: random.Random, doubles: bool) -> list[object]:
    """What a faulty board might send instead of `item` (a Display): usually `item` itself."""
    if not isinstance(item, tt.Display) or rng.random() < 0.75:
        return [item]
    roll = rng.randrange(9)
    if roll == 0:  # the server indicator wrong, or dark
        return [replace(item, server=rng.choice([None, 0, 1]))]
    if roll == 1:
        return [replace(item, ends=rng.choice([None, "normal", "swapped"]))]
    if roll == 2:  # sent twice
        return [item, item]
    if roll == 3:  # a rally missed, or a point taken back
        a, b = item.points
        return [replace(item, points=(a + rng.choice([-1, 1, 2]) if a else a + 2, b))]
    if roll == 4:
        return [replace(item, expedite=rng.choice([None, True, False]))]
    if roll == 5:
        return [replace(item, game_scores=(*item.game_scores, (11, 3)))]
    if roll == 6 and doubles:
        return [replace(item, server_player=rng.choice(["A1", "A2", "B1", "B2", None]))]
    if roll == 7:
        return [tt.TimeOut(rng.randrange(2)), item]
    return [replace(item, points=(0, 0))]  # a board reset mid-game


def _fold_both(plan: Plan, seed: int, noise: bool) -> tuple[int, int]:
    """Fold a match through `apply` and `_apply_in_full` side by side; return (inputs, shortcuts taken)."""
    rng = random.Random(seed ^ 0x5EED)
    state = tt.initial(config_for(plan))
    inputs = taken = 0
    at_shift = 0.0
    for at, item, _model in play(plan, seed):
        if noise and rng.random() < 0.02:
            at_shift += 700.0  # a long game: the expedite system comes due
        for sent in _noisy(item, rng, plan.doubles) if noise else [item]:
            when = at + at_shift
            fast = tt.apply(state, sent, when)
            full = tt._apply_in_full(state, tt.to_input(sent), when)
            assert fast == full, (sent, state)
            if type(sent) is tt.Display and tt._one_rally(state, sent, when) is not None:
                taken += 1
            inputs += 1
            state = fast.state
    return inputs, taken


@settings(max_examples=150, deadline=None)
@given(plans())
def test_the_shortcut_equals_the_full_fold_on_legal_matches(drawn: tuple[Plan, int]) -> None:
    plan, seed = drawn
    inputs, taken = _fold_both(plan, seed, noise=False)
    if plan.expedite_at is None:  # under expedite every rally takes the full fold
        assert taken > inputs // 3  # most inputs of a legal match are one rally: the shortcut is exercised


@settings(max_examples=300, deadline=None)
@given(plans())
def test_the_shortcut_equals_the_full_fold_on_a_noisy_board(drawn: tuple[Plan, int]) -> None:
    plan, seed = drawn
    _fold_both(plan, seed, noise=True)


def test_the_shortcut_is_taken_on_noisy_boards_too() -> None:
    # a stray expedite light starts the expedite system for good, so one match may never take it: count 20
    plan = Plan(5, False, "A", "B", True, None, None, None, False)
    folded = [_fold_both(plan, seed, noise=True) for seed in range(20)]
    inputs, taken = sum(i for i, _ in folded), sum(t for _, t in folded)
    assert inputs // 3 < taken < inputs


def test_a_game_won_and_the_next_games_first_display_take_shortcuts_too() -> None:
    """Every game boundary but the match's last: the winning rally (`_one_rally`, with its "game" fact) and
    the 0-0 display of the next game (`_next_game_display`); both held to the full fold by the tests above."""
    plan = Plan(5, False, "A", "B", True, None, None, None, False)
    for seed in range(6):
        state = tt.initial(config_for(plan))
        won = next_game = 0
        for at, item, _model in play(plan, seed):
            if type(item) is tt.Display:
                rally = tt._one_rally(state, item, at)
                won += rally is not None and [f.kind for f in rally.facts] == ["point", "game"]
                next_game += tt._next_game_display(state, item) is not None
            state = tt.apply(state, item, at).state
        assert state.winner is not None
        assert won == next_game == sum(state.games) - 1


# -- reading a logged display -------------------------------------------------------------------------------

_COUNT = st.one_of(st.integers(-2, 25), st.booleans(), st.none(), st.floats(0, 2), st.text(max_size=1))
_TWO = st.one_of(st.lists(_COUNT, max_size=3), st.tuples(_COUNT, _COUNT), _COUNT)
_DISPLAY = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["display", "tick", "point"]),
        "points": _TWO,
        "games": _TWO,
        "server": st.sampled_from([0, 1, 2, None, True, False, "A", 1.0, 0.0]),
        "game_scores": st.one_of(st.lists(_TWO, max_size=3), st.none(), st.tuples(_TWO)),
        "ends": st.sampled_from(["normal", "swapped", "left", None, 0, True]),
        "expedite": st.sampled_from([True, False, None, 0, 1]),
        "server_player": st.sampled_from(["A1", "B2", "C1", None, 2]),
    },
)


@given(_DISPLAY)
def test_a_logged_display_reads_the_same_inline_as_field_by_field(data: dict) -> None:
    try:
        expected = tt._checked_input_from_dict(data)
    except ValueError as exc:
        with pytest.raises(ValueError) as raised:
            tt.input_from_dict(data)
        assert str(raised.value) == str(exc)
        return
    got = tt.input_from_dict(data)
    assert got == expected and type(got) is type(expected)
    if isinstance(got, tt.Display):
        assert [type(v) for v in (got.server, got.ends, got.expedite)] == [
            type(v) for v in (expected.server, expected.ends, expected.expedite)
        ]


def test_a_written_display_takes_the_inline_reading() -> None:
    written = tt.input_to_dict(tt.Display((3, 4), (1, 0), 1, ((11, 9),), "swapped", False, None))
    assert tt._display_from_dict(written) == tt._checked_input_from_dict(written)


_N = st.one_of(st.integers(0, 30), st.booleans())


@given(
    st.tuples(_N, _N),
    st.tuples(_N, _N),
    st.sampled_from([None, 0, 1]),
    st.lists(st.tuples(_N, _N), max_size=4).map(tuple),
    st.sampled_from([None, "normal", "swapped"]),
    st.sampled_from([None, True, False]),
    st.sampled_from([None, "A1", "B2"]),
)
def test_a_scoreboard_report_is_written_as_its_display_is(
    points, games, server, game_scores, ends, expedite, server_player
) -> None:
    report = ScoreboardState(points, games, server, game_scores, ends, expedite, server_player)
    assert tt.input_to_dict(report) == tt.input_to_dict(tt.Display.of(report))


@settings(max_examples=60, deadline=None)
@given(plans())
def test_a_wall_tile_is_the_full_state_cut_to_its_keys(drawn: tuple[Plan, int]) -> None:
    plan, seed = drawn
    rng = random.Random(seed)
    state = tt.initial(config_for(plan))
    for at, item, _model in play(plan, seed):
        for sent in _noisy(item, rng, plan.doubles):
            state = tt.apply(state, sent, at).state
            full = tt.to_dict(state)
            assert tt.tile(state) == {key: full[key] for key in tt.TILE_KEYS}


@settings(max_examples=30, deadline=None)
@given(plans())
def test_the_public_view_is_the_full_state_without_the_rules_bookkeeping(drawn: tuple[Plan, int]) -> None:
    plan, seed = drawn
    state = tt.initial(config_for(plan))
    for at, item, _model in play(plan, seed):
        state = tt.apply(state, item, at).state
        full, shown = tt.to_dict(state), tt.view(state)
        assert list(full)[: len(shown)] == list(shown)
        assert {k: full[k] for k in shown} == shown
        assert {"points_log", "rallies", "ends", "game_scores"} <= set(shown)
        assert not {"config", "toss", "last_display", "unshown", "game_clock"} & set(shown)
        assert tt.from_dict(full) == state  # what resuming needs is all in the full one
