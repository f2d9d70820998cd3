"""Device observations into the hub: stored once, gaps flagged, late frames kept but never applied."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from boardcast_sim.pty import open_pty_pair
from boardcast_sim.tabletennis import TableTennisScoreboard
from devices.observations import DeviceHello, Observation, ScoreboardState
from devices.wire.session import DeviceSession
from hub.feed.fanout import Fanout
from hub.hall.live import Hall
from hub.ingest.sink import Ingest, TableSink
from hub.log.eventlog import EventLog
from hub.matches import MatchInfo
from hub.venue import TableConfig, Venue

HELLO = DeviceHello("tt-1", "tt-scoreboard", "test", "1.0", 1, boot_epoch=42)


def venue(device: str | None = None) -> Venue:
    table = TableConfig("T1", "tabletennis", device, "tt-1")
    return Venue("Test", (table,), (MatchInfo("M1", "tabletennis", "T1", 1, ("A", "B"), 5),))


async def open_hub(path: Path, device: str | None = None) -> tuple[Hall, Ingest]:
    log = EventLog(path)
    log.open()
    hall = Hall(venue(device), log, Fanout())
    hall.load()
    log.start()
    return hall, Ingest(hall)


@dataclass
class Hub:
    hall: Hall
    ingest: Ingest
    sink: TableSink

    def observe(self, *observations: Observation) -> None:
        for observation in observations:
            self.sink.observe(observation)


@pytest.fixture
async def hub(tmp_path: Path) -> AsyncIterator[Hub]:
    hall, ingest = await open_hub(tmp_path / "log.sqlite3")
    yield Hub(hall, ingest, ingest.sink_for(hall.venue.tables[0]))
    await hall.log.close()


def state(seq: int, points: tuple[int, int], epoch: int = 42) -> Observation:
    return obs(seq, ScoreboardState(points, (0, 0)), epoch)


def obs(seq: int, report, epoch: int = 42) -> Observation:
    return Observation("tt-1", epoch, seq, float(seq), report, raw=bytes([seq % 256]))


async def test_a_resent_frame_is_stored_once_and_applied_once(hub: Hub) -> None:
    hub.observe(obs(0, HELLO), state(1, (0, 0)), state(2, (1, 0)), state(2, (1, 0)))  # the radio repeated 2
    await hub.hall.log.flush()
    rows = [e for e in hub.hall.log.events() if e.device_id == "tt-1"]
    assert sorted(e.seq for e in rows) == [0, 1, 2]
    match = hub.hall.match("M1")
    assert match.sport_state.points == (1, 0)
    assert match.sport_state.rallies == 1
    assert hub.ingest.health["T1"].late == 1


async def test_a_seq_gap_is_a_device_gap_anomaly_on_the_match(hub: Hub) -> None:
    hub.observe(obs(0, HELLO), state(1, (0, 0)), state(5, (1, 0)))
    await hub.hall.log.flush()
    gaps = [a for a in hub.hall.match("M1").anomalies if a.code == "device.gap"]
    assert len(gaps) == 1
    assert gaps[0].data == {"device_id": "tt-1", "boot_epoch": 42, "expected": 2, "got": 5}
    assert "2–4" in gaps[0].message_en
    assert hub.ingest.health["T1"].gaps == 1


async def test_a_late_frame_is_kept_in_the_log_but_never_moves_the_score_back(hub: Hub) -> None:
    hub.observe(obs(0, HELLO), state(1, (0, 0)), state(3, (2, 0)), state(2, (1, 0)))  # 2 arrives after 3
    await hub.hall.log.flush()
    assert hub.hall.match("M1").sport_state.points == (2, 0)
    late = [e for e in hub.hall.log.events() if e.kind == "device.late"]
    assert [e.seq for e in late] == [2]
    assert late[0].body["report"]["points"] == [1, 0]


async def test_a_new_boot_epoch_starts_seq_again_without_a_gap(hub: Hub) -> None:
    rebooted = DeviceHello("tt-1", "tt-scoreboard", "test", "1.0", 1, boot_epoch=43)
    hub.observe(obs(0, HELLO), state(1, (0, 0)), state(9, (1, 0)), obs(0, rebooted, epoch=43))
    hub.observe(state(1, (2, 0), epoch=43))
    await hub.hall.log.flush()
    assert [a.code for a in hub.hall.match("M1").anomalies].count("device.gap") == 1  # only 1 -> 9
    assert hub.hall.match("M1").sport_state.points == (2, 0)


async def test_high_water_survives_a_restart_so_a_resent_frame_is_still_not_applied(tmp_path: Path) -> None:
    path = tmp_path / "log.sqlite3"
    hall, ingest = await open_hub(path)
    sink = ingest.sink_for(hall.venue.tables[0])
    sink.observe(obs(0, HELLO))
    sink.observe(obs(1, ScoreboardState((0, 0), (0, 0))))
    await hall.log.flush()
    await hall.log.close()

    hall, ingest = await open_hub(path)
    sink = ingest.sink_for(hall.venue.tables[0])
    try:
        version = hall.match("M1").version
        sink.observe(obs(1, ScoreboardState((0, 0), (0, 0))))
        assert hall.working["M1"].version == version
        assert ingest.health["T1"].late == 1
    finally:
        await hall.log.close()


async def test_over_a_real_pty_duplicates_and_garbage_lose_nothing(tmp_path: Path) -> None:
    pty = open_pty_pair()
    hall, ingest = await open_hub(tmp_path / "log.sqlite3", pty.slave_path)
    table = hall.venue.tables[0]
    session = DeviceSession.for_url(pty.slave_path, ingest.sink_for(table), expected_device_id="tt-1")
    board = TableTennisScoreboard("tt-1", seed=7, speed=1000)
    try:
        async with asyncio.TaskGroup() as tg:
            tasks = [tg.create_task(session.run()), tg.create_task(board.run_on_fd(pty.master_fd))]
            async with asyncio.timeout(10):
                while hall.match("M1").sport_state.rallies < 5:
                    await asyncio.sleep(0.01)
                await board.repeat_last_frame()
                await board.inject(b"\x13\x37garbage\xff\x00")
                await board.done.wait()
                final = board.history[-1].games
                while hall.match("M1").sport_state.games != final:
                    await asyncio.sleep(0.01)
            for task in tasks:
                task.cancel()
        match = hall.match("M1")
        assert match.status.value == "finished"
        assert match.sport_state.winner == (0 if final[0] > final[1] else 1)
        assert match.sport_state.games == final
        assert [a.code for a in match.anomalies if a.code.startswith("tt.")] == []
        health = ingest.health["T1"]
        assert health.frame_errors >= 1
        assert health.late + health.duplicates >= 1
        device_rows = [e for e in hall.log.events(limit=100000) if e.device_id == "tt-1"]
        keys = [(e.boot_epoch, e.seq) for e in device_rows]
        assert len(keys) == len(set(keys))
    finally:
        await hall.log.close()
        pty.close()
