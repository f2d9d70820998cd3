"""Referee inputs (time-out, card, correction…) as logged match events, and the rules clock tick."""

from __future__ import annotations

import asyncio
from pathlib import Path

from devices.observations import DeviceHello, Observation, ScoreboardState
from hub.feed.fanout import Fanout
from hub.hall.live import Hall, replay_match
from hub.ingest.sink import Ingest
from hub.log.eventlog import EventLog
from hub.matches import MatchInfo, public_view
from hub.venue import TableConfig, Venue
from tests.hubsupport import post_json, running_hub, venue


async def test_referee_inputs_are_checked_logged_with_the_referee_and_folded(tmp_path: Path) -> None:
    v = venue(TableConfig("T1", "tabletennis"))
    async with running_hub(tmp_path, v) as url:
        inputs = url + "api/matches/M-T1/inputs"
        assert (await asyncio.to_thread(post_json, inputs, {"type": "timeout", "side": 0}, None))[0] == 401
        status, error = await asyncio.to_thread(post_json, inputs, {"type": "timeout", "side": 7})
        assert status == 400 and "side" in error["error"]
        status, error = await asyncio.to_thread(
            post_json, inputs, {"type": "display", "points": [1, 0], "games": [0, 0]}
        )
        assert status == 400 and '"type" must be one of' in error["error"]
        status, match = await asyncio.to_thread(post_json, inputs, {"type": "timeout", "side": 0})
        assert status == 200 and match["state"]["timeouts"] == [True, False]
        status, error = await asyncio.to_thread(post_json, inputs, {"type": "timeout", "side": 0})
        assert status == 409  # the rules allow one time-out a side: a referee's second is refused, not logged
        assert "second time-out" in error["error"] and "ikinci kez mola" in error["error"]
    log = EventLog(tmp_path / "data" / "events.sqlite3")
    log.open()
    try:
        inputs_logged = [e for e in log.events() if e.kind == "referee.input"]
        assert [e.actor for e in inputs_logged] == ["Hakem"]
    finally:
        await log.close()


async def test_ten_minutes_of_play_without_expedite_is_noticed_by_the_clock_tick(tmp_path: Path) -> None:
    v = Venue(
        "Tick", (TableConfig("T1", "tabletennis"),), (MatchInfo("M1", "tabletennis", "T1", 1, ("A", "B"), 5),)
    )
    log = EventLog(tmp_path / "log.sqlite3")
    log.open()
    hall = Hall(v, log, Fanout())
    hall.load()
    log.start()
    sink = Ingest(hall).sink_for(v.tables[0])
    hello = DeviceHello("tt", "tt-scoreboard", "m", "f", 1, 1)
    sink.observe(Observation("tt", 1, 0, 0.0, hello))
    sink.observe(Observation("tt", 1, 1, 0.0, ScoreboardState((0, 0), (0, 0), server=0)))
    sink.observe(Observation("tt", 1, 2, 30.0, ScoreboardState((1, 0), (0, 0), server=0)))
    assert hall.tick(300.0) == 0  # five minutes: nothing to say, nothing logged
    assert hall.tick(30.0 + 601.0) == 1
    assert hall.tick(30.0 + 700.0) == 0  # said once per game
    await log.flush()
    assert [a.code for a in hall.match("M1").anomalies] == ["tt.expedite_due"]
    replayed, _ = replay_match(v.matches[0], log)
    assert public_view(replayed) == public_view(hall.match("M1"))
    await log.close()
