"""Replay's run shortcut (`fastpath.fold_rallies`) gives exactly what the plain reducer gives row by row.

`fold_rallies` folds a run of logged scoreboard displays in one step. Here generated matches, legal ones and
ones with a noisy board (wrong indicators, jumps, repeats, decreases, a stray expedite light, a wrong game
history, a board reset, time-outs, long gaps that make the expedite system due), are logged as match event
rows and folded both ways: each run `fold_rallies` takes must give the state and facts `apply` gives on its
rows one by one (and raise no anomaly), and the shortcut must be taken, or the comparison proves nothing.
Also here: a scoreboard report written as its display is, the wall tile and the public view against the
full state.
"""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st
from test_tabletennis_properties import Plan, config_for, plans, play

from devices.observations import ScoreboardState
from hub.rules import tabletennis as tt
from hub.rules.tabletennis import fastpath


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


def _rows(plan: Plan, seed: int, noise: bool) -> list[tuple[int, str, float, str | None, dict]]:
    """The match as event rows `(offset, kind, at, actor, body)`, as the log holds them."""
    rng = random.Random(seed ^ 0x5EED)
    rows: list[tuple[int, str, float, str | None, dict]] = []
    at_shift = 0.0
    for at, item, _model in play(plan, seed):
        if noise and rng.random() < 0.02:
            at_shift += 700.0  # a long game: the expedite system comes due
        for sent in _noisy(item, rng, plan.doubles) if noise else [item]:
            data = tt.input_to_dict(sent)
            if isinstance(sent, tt.Display):
                rows.append((len(rows) + 1, "device.report", at + at_shift, None, {"report": data}))
            else:
                rows.append((len(rows) + 1, "referee.input", at + at_shift, "ref", {"input": data}))
    return rows


def _plain(state: tt.TableTennisState, row: tuple) -> tt.Outcome[tt.TableTennisState]:
    body = row[4]
    return tt.apply(state, tt.input_from_dict(body.get("report") or body["input"]), row[2])


def _fold_both(plan: Plan, seed: int, noise: bool) -> tuple[int, int, int]:
    """Fold a match's rows through `fold_rallies` where it takes them and through `apply` row by row, side
    by side; return (rows, rows folded in runs, runs that crossed into a next game)."""
    rows = _rows(plan, seed, noise)
    state = tt.initial(config_for(plan))
    i = taken = crossed = 0
    while i < len(rows):
        after, folded, facts = fastpath.fold_rallies(state, rows, i, len(rows))
        if not folded:
            assert after is state
            state = _plain(state, rows[i]).state
            i += 1
            continue
        plain, plain_facts = state, []
        for n in range(folded):
            outcome = _plain(plain, rows[i + n])
            assert outcome.anomalies == ()
            plain_facts += [(n, f) for f in outcome.facts]
            plain = outcome.state
        assert after == plain, (i, rows[i : i + folded])
        assert facts(len(plain_facts) + 3) == plain_facts
        assert facts(1) == plain_facts[-1:]
        crossed += sum(after.games) > sum(state.games)
        taken += folded
        state = after
        i += folded
    return len(rows), taken, crossed


@settings(max_examples=150, deadline=None)
@given(plans())
def test_a_run_folds_as_the_reducer_does_on_legal_matches(drawn: tuple[Plan, int]) -> None:
    plan, seed = drawn
    rows, taken, _ = _fold_both(plan, seed, noise=False)
    if plan.expedite_at is None and not plan.doubles:  # runs are singles without expedite
        assert taken > rows // 3  # most rows of a legal match are one rally: the shortcut is exercised


@settings(max_examples=300, deadline=None)
@given(plans())
def test_a_run_folds_as_the_reducer_does_on_a_noisy_board(drawn: tuple[Plan, int]) -> None:
    plan, seed = drawn
    _fold_both(plan, seed, noise=True)


def test_runs_are_taken_on_noisy_boards_too() -> None:
    # a stray expedite light starts the expedite system for good, so one match may never take it: count 20
    plan = Plan(5, False, "A", "B", True, None, None, None, False)
    folded = [_fold_both(plan, seed, noise=True) for seed in range(20)]
    rows, taken = sum(r for r, _, _ in folded), sum(t for _, t, _ in folded)
    assert rows // 3 < taken < rows


def test_a_legal_match_goes_in_runs_across_games() -> None:
    """All but the first display, the change of ends at 5 in a deciding game, the match point and what
    follows it: games won and the next games' first displays go in the runs too."""
    plan = Plan(5, False, "A", "B", True, None, None, None, False)
    for seed in range(6):
        rows, taken, crossed = _fold_both(plan, seed, noise=False)
        assert crossed > 0
        assert taken >= rows - 4


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
