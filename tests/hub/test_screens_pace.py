"""A match's screens get its state at most every `SCREENS_EVERY_S`: a burst of changes (a table catching up)
sends the first at once and the latest when the interval ends, never an older one after a newer one; reads
(`public_match`, the REST API) see every state at once."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from hub.hall.spectators import SCREENS_EVERY_S
from tests.hub.test_ingest import HELLO, obs, open_hub, state


def versions(texts: list[str], topic: str) -> list[int]:
    return [m["version"] for m in map(json.loads, texts) if m["topic"] == topic and not m.get("snapshot")]


async def test_a_burst_reaches_the_screens_as_its_first_and_latest_state(tmp_path: Path) -> None:
    hall, ingest = await open_hub(tmp_path / "log.sqlite3")
    try:
        sink = ingest.sink_for(hall.venue.tables[0])
        watcher = hall.fanout.connect()
        hall.fanout.subscribe(watcher, "match:M1")
        watcher.take_now()  # the snapshot
        await asyncio.sleep(SCREENS_EVERY_S)  # nothing sent for a while: the next change goes at once

        sink.observe(obs(0, HELLO))
        for seq in range(1, 8):  # seven rallies within a few milliseconds, each committed on its own
            sink.observe(state(seq, (seq - 1, 0)))
            await hall.log.flush()
        latest = hall.public_match("M1").version
        assert hall.public_match("M1").sport_state.points == (6, 0)  # reads see the latest at once
        first = versions(watcher.take_now(), "match:M1")
        assert len(first) == 1 and first[0] < latest  # the first change went out at once, alone

        await asyncio.sleep(SCREENS_EVERY_S * 1.5)
        assert versions(watcher.take_now(), "match:M1") == [latest]  # then only the latest

        await asyncio.sleep(SCREENS_EVERY_S)
        sink.observe(state(8, (7, 0)))
        await hall.log.flush()
        assert versions(watcher.take_now(), "match:M1") == [hall.public_match("M1").version]  # quiet: at once
    finally:
        await hall.log.close()


async def test_a_client_joining_within_the_interval_gets_each_version_once(tmp_path: Path) -> None:
    """The snapshot is what the screens were last sent, so the state waiting for the interval to end reaches
    the new client once, as the next change, not a second time after a snapshot that already held it."""
    hall, ingest = await open_hub(tmp_path / "log.sqlite3")
    try:
        sink = ingest.sink_for(hall.venue.tables[0])
        early = hall.fanout.connect()
        hall.fanout.subscribe(early, "match:M1")
        early.take_now()
        await asyncio.sleep(SCREENS_EVERY_S)

        sink.observe(obs(0, HELLO))
        for seq in range(1, 4):
            sink.observe(state(seq, (seq - 1, 0)))
            await hall.log.flush()
        sent = versions(early.take_now(), "match:M1")
        latest = hall.public_match("M1").version
        assert len(sent) == 1 and sent[0] < latest  # the latest waits for the interval to end

        late = hall.fanout.connect()
        hall.fanout.subscribe(late, "match:M1")
        (snapshot,) = map(json.loads, late.take_now())
        assert snapshot["snapshot"] and snapshot["version"] == sent[0]

        await asyncio.sleep(SCREENS_EVERY_S * 1.5)
        assert versions(late.take_now(), "match:M1") == [latest]
        assert versions(early.take_now(), "match:M1") == [latest]
    finally:
        await hall.log.close()
