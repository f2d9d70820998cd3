"""A read that brings many frames is folded as runs (`Ingest.observe_many`, `Hall.record_reports`): the log and
the hall must be exactly what observing the same frames one at a time gives, noise and all."""

from __future__ import annotations

import random
import sqlite3
from dataclasses import replace
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardcast_sim.tabletennis import TableTennisMatchSim
from devices.observations import DeviceEvent, DeviceHello, Heartbeat, Observation, ScoreboardState
from hub.feed.fanout import Fanout
from hub.hall.live import Hall
from hub.ingest.sink import Ingest
from hub.log.eventlog import EventLog
from hub.matches import MatchInfo, public_view, to_snapshot
from hub.venue import TableConfig, Venue

VENUE = Venue(
    "Batches",
    (TableConfig("T1", "tabletennis"),),
    (
        MatchInfo("M1", "tabletennis", "T1", 1, ("A", "B"), 5),
        MatchInfo("M2", "tabletennis", "T1", 2, ("C", "D"), 3),
        MatchInfo("M3", "tabletennis", "T1", 3, ("E", "F"), 3),
    ),
)


def _hello(epoch: int) -> DeviceHello:
    return DeviceHello("d", "tt-scoreboard", "m", "f", 1, epoch)


def device_stream(seed: int) -> list[Observation]:
    """What a faulty scoreboard might send over three matches: resent and lost frames, a reboot, a board reset,
    wrong indicators, time-outs, heartbeats, the final display repeated, a match's first display late."""
    rng = random.Random(seed)
    epoch, seq, at = 1, 0, 0.0
    out = [Observation("d", epoch, seq, at, _hello(epoch))]
    for number, best_of in enumerate((5, 3, 3)):
        sim = TableTennisMatchSim(seed + number, best_of)
        reports: list[object] = [sim.state]
        while not sim.finished:
            reports.append(sim.next_rally())
        reports += [reports[-1]] * rng.randrange(3)  # the final display, shown again
        for report in reports:
            at += rng.choice([0.5, 8.0, 15.0])
            roll = rng.random()
            sent: list[object] = [report]
            if roll < 0.03 and isinstance(report, ScoreboardState):
                sent = [replace(report, server=rng.choice([None, 0, 1]))]
            elif roll < 0.05:
                sent = [DeviceEvent("timeout", {"side": rng.randrange(2)}), report]
            elif roll < 0.07:
                sent = [Heartbeat(battery=rng.randrange(101)), report]
            elif roll < 0.08 and isinstance(report, ScoreboardState):
                sent = [replace(report, points=(0, 0)), report]  # a board reset mid-game
            for item in sent:
                seq += 1
                if rng.random() < 0.03:
                    continue  # lost: the next frame is a gap
                out.append(Observation("d", epoch, seq, at, item, raw=bytes([seq & 0xFF, number])))
                if rng.random() < 0.03:  # resent: late, stored once
                    out.append(Observation("d", epoch, seq, at + 0.1, item, raw=bytes([seq & 0xFF, number])))
            if rng.random() < 0.005:  # a reboot: a new epoch, its counter from 0
                epoch, seq = epoch + 1, 0
                out.append(Observation("d", epoch, seq, at, _hello(epoch)))
    return out


def _chunks(items: list[Observation], rng: random.Random) -> list[list[Observation]]:
    """The stream cut as reads might cut it: one frame, a few, a long run."""
    chunks, i = [], 0
    while i < len(items):
        n = rng.choice([1, 2, 5, 40, 300])
        chunks.append(items[i : i + n])
        i += n
    return chunks


async def _serve(path: Path, stream: list[Observation], reads: list[list[Observation]] | None) -> dict:
    log = EventLog(path)
    log.open()
    hall = Hall(VENUE, log, Fanout(), snapshot_every=25)
    hall.load()
    log.start()
    sink = Ingest(hall).sink_for(VENUE.tables[0])
    if reads is None:
        for observation in stream:
            sink.observe(observation)
    else:
        for read in reads:
            sink.observe_many(read)
    await log.flush()
    served = {
        "public": {m.info.id: public_view(m) for m in hall.matches()},
        "state": {m.info.id: to_snapshot(m) for m in hall.matches()},
        "working": {mid: to_snapshot(m) for mid, m in hall.working.items()},
    }
    await log.close()
    with sqlite3.connect(path) as conn:
        served["events"] = conn.execute("SELECT * FROM events ORDER BY id").fetchall()
        served["snapshot_offsets"] = conn.execute(
            'SELECT match_id, "offset" FROM snapshots ORDER BY match_id, "offset"'
        ).fetchall()
    conn.close()
    return served


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 100_000))
async def test_folding_what_a_read_brought_logs_and_serves_what_one_by_one_does(
    tmp_path_factory, seed
) -> None:
    stream = device_stream(seed)
    root = tmp_path_factory.mktemp("batches")
    one_by_one = await _serve(root / "one.sqlite3", stream, None)
    batched = await _serve(root / "many.sqlite3", stream, _chunks(stream, random.Random(seed)))

    assert one_by_one["public"]["M1"]["status"] == "finished"
    assert len(batched["events"]) == len(one_by_one["events"])
    assert batched["events"] == one_by_one["events"]  # every row, id, offset, body and raw frame alike
    assert batched["public"] == one_by_one["public"]
    assert batched["state"] == one_by_one["state"]
    assert batched["working"] == one_by_one["working"]
    # a run may step over a multiple of `snapshot_every`: the snapshot is then taken at the run's end
    assert {m for m, _ in batched["snapshot_offsets"]} == {m for m, _ in one_by_one["snapshot_offsets"]}


async def test_a_long_read_is_folded_as_runs_not_report_by_report(tmp_path, monkeypatch) -> None:
    stream = device_stream(7)
    calls: list[int] = []
    original = Hall.record_reports

    def counting(self, match_id, reports, start=0):  # type: ignore[no-untyped-def]
        taken = original(self, match_id, reports, start)
        calls.append(taken)
        return taken

    monkeypatch.setattr(Hall, "record_reports", counting)
    served = await _serve(tmp_path / "log.sqlite3", stream, [stream])
    folded = sum(calls)
    assert served["public"]["M3"]["status"] == "finished"
    assert folded > 150
    assert max(calls) > 20  # runs of rallies went in together
    assert len(calls) < folded / 4
