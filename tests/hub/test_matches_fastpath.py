"""The rally shortcut (`SportRules.fold_reports`) against the plain reducer: a match's log rows folded by
`fold_events` (replay: runs of plain rallies in one step each) and a live match's reports through
`apply_event` (one plain rally at a time) give exactly the state the rules' `apply` gives row by row, on
generated matches with a noisy board, referee inputs, ticks, anomalies and a confirmation, cut anywhere."""

from __future__ import annotations

import random
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_tabletennis_fastpath import _noisy
from test_tabletennis_properties import Plan, plans
from test_tabletennis_properties import play as play_match

from hub.log.eventlog import pack
from hub.matches import MatchInfo, MatchState, apply_event, fold_events, new_match, to_snapshot
from hub.rules import tabletennis as tt
from hub.rules.registry import SPORTS


def _rows(plan: Plan, seed: int, noise: bool) -> list[tuple[int, str, float, str | None, Any]]:
    """A match's log rows: every input of a generated match as a device report (noisy if asked), with now
    and then an anomaly, a tick or a referee's point, and a referee confirming near the end (reports after
    it are refused by the match, not the rules)."""
    rng = random.Random(seed ^ 0xFEED)
    rows: list[tuple[int, str, float, str | None, Any]] = []
    shift = 0.0
    inputs = list(play_match(plan, seed))
    confirm_at = len(inputs) - rng.randrange(1, 4) if noise else None
    for n, (at, item, _model) in enumerate(inputs):
        if noise and rng.random() < 0.02:
            shift += 700.0  # a long game: the expedite system comes due
        when = at + shift
        if n == confirm_at:
            rows.append((len(rows) + 1, "referee.confirm", when, "ref", {}))
        for sent in _noisy(item, rng, plan.doubles) if noise else [item]:
            body = {"device_id": "d", "boot_epoch": 1, "seq": len(rows), "report": tt.input_to_dict(sent)}
            rows.append((len(rows) + 1, "device.report", when, None, body))
        if noise and rng.random() < 0.03:
            extra = rng.choice(
                [
                    (
                        "anomaly",
                        None,
                        {"code": "x", "severity": "info", "message_en": "e", "message_tr": "t", "data": {}},
                    ),
                    ("clock.tick", None, {}),
                    ("referee.input", "ref", {"input": {"type": "point", "side": rng.randrange(2)}}),
                ]
            )
            rows.append((len(rows) + 1, extra[0], when, extra[1], extra[2]))
    return rows


def _info(plan: Plan) -> MatchInfo:
    players = ("A1", "A2", "B1", "B2") if plan.doubles else ("A", "B")
    known = plan.config_knows_first_server
    return MatchInfo(
        "M",
        "tabletennis",
        "T1",
        1,
        players,
        plan.best_of,
        plan.doubles,
        plan.first_server if known else None,
        plan.first_receiver if known and plan.doubles else None,
    )


def _plain() -> Any:
    """The plain reducer: no shortcut, live or in replay (the rules' `apply` for every row)."""
    return patch.object(SPORTS["tabletennis"], "fold_reports", None)


def _step_by_step(info: MatchInfo, rows: list[tuple[int, str, float, str | None, Any]]) -> MatchState:
    state = new_match(info)
    with _plain():
        for offset, kind, at, actor, body in rows:
            state = apply_event(state, kind, body, offset, at, actor).state
    return state


def _same(a: MatchState, b: MatchState) -> None:
    assert a == b
    assert pack(to_snapshot(a)) == pack(to_snapshot(b))  # the same snapshot, byte for byte


@settings(max_examples=200, deadline=None)
@given(plans(), st.booleans(), st.integers(0, 400))
def test_folding_runs_of_rallies_gives_the_state_folding_row_by_row_gives(
    drawn: tuple[Plan, int], noise: bool, cut: int
) -> None:
    plan, seed = drawn
    info = _info(plan)
    rows = _rows(plan, seed, noise)
    folded, count = fold_events(new_match(info), rows)
    assert count == len(rows)
    _same(folded, _step_by_step(info, rows))
    part, count = fold_events(new_match(info), rows, up_to=cut)  # replay up to a version
    assert count == min(cut, len(rows))
    _same(part, _step_by_step(info, rows[:cut]))


@settings(max_examples=100, deadline=None)
@given(plans(), st.booleans())
def test_a_live_report_taken_as_one_rally_gives_what_the_rules_give(
    drawn: tuple[Plan, int], noise: bool
) -> None:
    """`apply_event` on a live match takes a report the shortcut reads as one plain rally through it: the same
    state, facts and anomalies as the rules' `apply`, report by report."""
    plan, seed = drawn
    quick = plain = new_match(_info(plan))
    for offset, kind, at, actor, body in _rows(plan, seed, noise):
        fast = apply_event(quick, kind, body, offset, at, actor)
        with _plain():
            slow = apply_event(plain, kind, body, offset, at, actor)
        assert (fast.state, fast.facts, fast.anomalies) == (slow.state, slow.facts, slow.anomalies), body
        quick, plain = fast.state, slow.state
    _same(quick, plain)


def test_live_reports_take_the_shortcut(monkeypatch) -> None:
    """The shortcut is taken live: every report of a legal match but its first display, the change of ends at 5
    in the deciding game, the match point and the board's display after it."""
    taken = 0

    def counting(state, rows, start, end):
        nonlocal taken
        after, folded, facts = tt.fold_rallies(state, rows, start, end)
        taken += folded
        return after, folded, facts

    monkeypatch.setattr(SPORTS["tabletennis"], "fold_reports", counting)
    plan = Plan(5, False, "A", "B", True, None, None, None, False)
    rows = _rows(plan, 3, noise=False)
    state = new_match(_info(plan))
    for offset, kind, at, actor, body in rows:
        state = apply_event(state, kind, body, offset, at, actor).state
    assert taken == len(rows) - 4
    _same(state, _step_by_step(_info(plan), rows))


def test_the_run_shortcut_is_taken_and_agrees(monkeypatch) -> None:
    taken = 0
    sport = SPORTS["tabletennis"]  # the rules' runs put in here, whether the sport has them on or not

    crossed = 0  # runs that went on through a game won into the next game

    def counting(state, rows, start, end):
        nonlocal taken, crossed
        after, folded, facts = tt.fold_rallies(state, rows, start, end)
        taken += folded
        crossed += sum(after.games) > sum(state.games)
        return after, folded, facts

    monkeypatch.setattr(sport, "fold_reports", counting)
    plan = Plan(7, False, "A", "B", True, None, None, None, False)
    for seed in range(5):  # a noisy board: runs break off wherever a display is more than one rally
        rows = _rows(plan, seed, noise=True)
        folded, _ = fold_events(new_match(_info(plan)), rows)
        _same(folded, _step_by_step(_info(plan), rows))
    assert taken > 0
    rows = _rows(plan, 7, noise=False)
    taken = 0
    folded, _ = fold_events(new_match(_info(plan)), rows)
    _same(folded, _step_by_step(_info(plan), rows))
    # a legal match is rallies, games won and next games' first displays: all go in runs, across games, but
    # its first display, the match point and the board's display after it
    assert taken == len(rows) - 3
    assert crossed > 0


def test_a_sport_without_runs_folds_row_by_row(monkeypatch) -> None:
    """`SportRules.fold_reports` None: `fold_events` is the plain reducer's loop, cut where asked."""
    monkeypatch.setattr(SPORTS["tabletennis"], "fold_reports", None)
    plan = Plan(5, False, "A", "B", True, None, None, None, False)
    rows = _rows(plan, 5, noise=True)
    folded, count = fold_events(new_match(_info(plan)), rows)
    assert count == len(rows)
    _same(folded, _step_by_step(_info(plan), rows))
    part, count = fold_events(new_match(_info(plan)), rows, up_to=40)
    assert count == 40
    _same(part, _step_by_step(_info(plan), rows[:40]))
    first, count = fold_events(new_match(_info(plan)), rows, until_status_changes=True)
    assert count == 1 and first.status.value == "live"  # the first report makes the match live


def _corruptions(report: dict[str, Any]) -> list[dict[str, Any]]:
    """What a faulty board might show instead of a display at a game's end or a game's start."""
    flipped_server = 0 if report["server"] == 1 else 1
    flipped_ends = "normal" if report["ends"] == "swapped" else "swapped"
    history = report["game_scores"]
    return [
        {**report, "server": flipped_server},
        {**report, "ends": flipped_ends},
        {**report, "expedite": True},
        {**report, "server": None, "ends": None},
        {**report, "game_scores": [*history[:-1], [11, 0]] if history else [[11, 0]]},
        {**report, "game_scores": []},
        {**report, "games": [report["games"][1], report["games"][0]]},
        {**report, "points": [report["points"][0], report["points"][1] + 1]},
    ]


def test_game_boundaries_folded_in_runs_check_the_board_as_row_by_row_does() -> None:
    """Each display at a game's end (the winning rally) and at the next game's start, shown wrongly in every
    way a board can get it wrong: the run stops or goes on exactly where row-by-row folding flags it."""
    plan = Plan(7, False, "A", "B", True, None, None, None, False)
    rows = _rows(plan, 7, noise=False)
    info = _info(plan)
    boundaries = [
        i
        for i in range(1, len(rows))
        if rows[i][4]["report"]["games"] != rows[i - 1][4]["report"]["games"]
        or rows[i][4]["report"]["games"] != rows[i + 1][4]["report"]["games"]
    ]
    assert len(boundaries) >= 6
    checked = flagged = 0
    for i in boundaries:
        for shown in _corruptions(rows[i][4]["report"]):
            offset, kind, at, actor, body = rows[i]
            changed = [*rows[:i], (offset, kind, at, actor, {**body, "report": shown}), *rows[i + 1 :]]
            for cut in (i + 1, min(len(rows), i + 4)):
                folded, _ = fold_events(new_match(info), changed, up_to=cut)
                expected = _step_by_step(info, changed[:cut])
                _same(folded, expected)
                checked += 1
                flagged += bool(expected.anomalies)
    assert flagged > checked // 3  # most of these are flagged by the rules: the comparison has teeth


_ODD = st.sampled_from([True, False, None, 1.0, 0.0, -1, "1", (1, 0), [], [1], {}, 99])


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 90),
    st.sampled_from(
        ["points", "games", "server", "game_scores", "ends", "expedite", "server_player", "type"]
    ),
    _ODD,
    st.integers(0, 1),
)
def test_a_logged_display_with_an_odd_field_folds_in_a_run_as_row_by_row(
    index: int, field: str, odd: Any, element: int
) -> None:
    """Reading a run checks each field as `input_from_dict` does: a bool where an int belongs, a float, a
    tuple, a key of the wrong type, anywhere in a run, gives what folding row by row gives."""
    plan = Plan(5, False, "A", "B", True, None, None, None, False)
    rows = _rows(plan, 3, noise=False)
    index = min(index, len(rows) - 1)
    offset, kind, at, actor, body = rows[index]
    report = dict(body["report"])
    if field in ("points", "games") and isinstance(odd, bool | float):
        pair = list(report[field])
        pair[element] = odd if isinstance(odd, float) else bool(pair[element])  # equal in value, not in type
        report[field] = pair
    elif field == "game_scores" and report["game_scores"] and isinstance(odd, bool | float):
        history = [list(g) for g in report["game_scores"]]
        history[-1][element] = float(history[-1][element]) if isinstance(odd, float) else odd
        report["game_scores"] = history
    else:
        report[field] = odd
    changed = [*rows[:index], (offset, kind, at, actor, {**body, "report": report}), *rows[index + 1 :]]
    try:
        expected = _step_by_step(_info(plan), changed)
    except ValueError as exc:  # not a display the rules can read: replay stops there the same way
        with pytest.raises(ValueError) as raised:
            fold_events(new_match(_info(plan)), changed)
        assert str(raised.value) == str(exc)
        return
    folded, _ = fold_events(new_match(_info(plan)), changed)
    _same(folded, expected)
