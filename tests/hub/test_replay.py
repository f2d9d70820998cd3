"""Replay equals live: a hall rebuilt from snapshots and the log's tail is the hall that served."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_tabletennis_properties import Plan
from tt_rows import match_info, match_rows

from boardcast_sim.tabletennis import TableTennisMatchSim
from devices.observations import DeviceHello, Observation
from hub.feed.fanout import Fanout
from hub.hall.live import Hall, replay_match
from hub.ingest.sink import Ingest
from hub.log.eventlog import EventLog
from hub.matches import MatchInfo, apply_event, new_match, public_view, result_to_dict, summary
from hub.rules.registry import SPORTS
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


def test_a_match_view_is_its_wall_summary_with_the_whole_state_and_result() -> None:
    plan = Plan(5, False, "A", "B", True, None, None, None, False)
    rows = match_rows(plan, 11, noise=True)
    state = new_match(match_info(plan))
    for offset, kind, at, actor, body in rows:
        state = apply_event(state, kind, body, offset, at, actor).state
        view, tile = public_view(state), summary(state)
        assert list(view)[: len(tile)] == list(tile)  # the wall's keys first, in the wall's order
        assert {k: v for k, v in view.items() if k in tile and k not in ("state", "result")} == {
            k: v for k, v in tile.items() if k not in ("state", "result")
        }
        assert view["state"] == SPORTS["tabletennis"].public_state(state.sport_state)
        assert view["result"] == result_to_dict(state.result)
