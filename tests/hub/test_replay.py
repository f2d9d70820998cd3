"""Replay equals live: a hall rebuilt from snapshots and the log's tail is the hall that served."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_tabletennis_fastpath import _noisy
from test_tabletennis_properties import Plan, plans
from test_tabletennis_properties import play as play_match

from devices.observations import DeviceHello, Observation
from devices.simulators.tabletennis import TableTennisMatchSim
from hub.eventlog import EventLog, pack
from hub.fanout import Fanout
from hub.hall import Hall, replay_match
from hub.ingest import Ingest
from hub.matches import (
    MatchInfo,
    MatchState,
    apply_event,
    fold_events,
    new_match,
    public_view,
    result_to_dict,
    summary,
    to_snapshot,
)
from hub.rules import tabletennis as tt
from hub.sports import SPORTS
from hub.venue import TableConfig, Venue

VENUE = Venue(
    "Replay",
    (TableConfig("T1", "tabletennis"),),
    (
        MatchInfo("M1", "tabletennis", "T1", 1, ("A", "B"), 7),
        MatchInfo("M2", "tabletennis", "T1", 2, ("C", "D"), 3),
    ),
)


async def play(path: Path, seed: int, snapshot_every: int, skip: frozenset[int]) -> dict:
    """Feed two simulated matches (with some frames lost) into a hall; return what it served."""
    log = EventLog(path)
    log.open()
    hall = Hall(VENUE, log, Fanout(), snapshot_every=snapshot_every)
    hall.load()
    log.start()
    sink = Ingest(hall).sink_for(VENUE.tables[0])
    seq = 0
    sink.observe(Observation("d", 1, seq, 0.0, DeviceHello("d", "tt-scoreboard", "m", "f", 1, 1)))
    for number, best_of in enumerate((7, 3)):
        sim = TableTennisMatchSim(seed + number, best_of)
        reports = [sim.state]
        while not sim.finished:
            reports.append(sim.next_rally())
        for report in reports:
            seq += 1
            if seq not in skip:
                sink.observe(Observation("d", 1, seq, float(seq), report))
    await log.flush()
    served = {m.info.id: public_view(m) for m in hall.matches()}
    await log.close()
    return served


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(0, 10_000),
    snapshot_every=st.sampled_from([1, 7, 50, 10_000]),
    skip=st.frozensets(st.integers(5, 60), max_size=4),
)
async def test_a_restarted_hall_serves_exactly_what_the_live_hall_served(
    tmp_path_factory, seed: int, snapshot_every: int, skip: frozenset[int]
) -> None:
    path = tmp_path_factory.mktemp("replay") / "log.sqlite3"
    served = await play(path, seed, snapshot_every, skip)
    assert served["M1"]["status"] == "finished"

    log = EventLog(path)
    log.open()
    restarted = Hall(VENUE, log, Fanout())
    restarted.load()
    try:
        assert {m.info.id: public_view(m) for m in restarted.matches()} == served
        for info in VENUE.matches:  # with or without snapshots, the fold is the same
            from_scratch, _ = replay_match(info, log)
            assert public_view(from_scratch) == served[info.id]
        if snapshot_every < 50:
            assert log.snapshots(), "snapshots were due but none was written"
    finally:
        await log.close()


# -- replay's shortcut through runs of plain rallies ---------------------------------------------------------


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


def _step_by_step(info: MatchInfo, rows: list[tuple[int, str, float, str | None, Any]]) -> MatchState:
    state = new_match(info)
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


def test_the_run_shortcut_is_taken_and_agrees(monkeypatch) -> None:
    taken = 0
    sport = SPORTS["tabletennis"]
    assert sport.fold_reports is not None

    crossed = 0  # runs that went on through a game won into the next game

    def counting(state, rows, start, end):
        nonlocal taken, crossed
        after, folded, facts = tt.fold_rallies(state, rows, start, end)
        taken += folded
        crossed += sum(after.games) > sum(state.games)
        return after, folded, facts

    monkeypatch.setitem(SPORTS, "tabletennis", replace(sport, fold_reports=counting))
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


def test_a_match_view_is_its_wall_summary_with_the_whole_state_and_result() -> None:
    plan = Plan(5, False, "A", "B", True, None, None, None, False)
    rows = _rows(plan, 11, noise=True)
    state = new_match(_info(plan))
    for offset, kind, at, actor, body in rows:
        state = apply_event(state, kind, body, offset, at, actor).state
        view, tile = public_view(state), summary(state)
        assert list(view)[: len(tile)] == list(tile)  # the wall's keys first, in the wall's order
        assert {k: v for k, v in view.items() if k in tile and k not in ("state", "result")} == {
            k: v for k, v in tile.items() if k not in ("state", "result")
        }
        assert view["state"] == SPORTS["tabletennis"].public_state(state.sport_state)
        assert view["result"] == result_to_dict(state.result)
