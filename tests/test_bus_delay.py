"""A chess hall with a broadcast delay, over the bus: edges get a game only as late as the hub's spectators.

A real Hall (log, reducer, delay) publishes through `BusPublisher` to a real redis-server; an `EdgeHall`
fed by `BusReader` must show exactly what the hub's own spectators see, at every release: views, team
score and live PGN, and never a move younger than the delay.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from hub.bus.edge import EdgeHall
from hub.bus.streams import BusPublisher, BusReader
from hub.feed.fanout import Fanout
from hub.hall.live import Hall
from hub.log.eventlog import EventLog
from hub.matches import MatchStatus
from hub.rules.chess.pgn_feed import game_pgn
from tests.bussupport import RedisServer, running_redis
from tests.hub.test_chess_hall import MOVES, START, chess_venue, feed_game


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A real redis-server for the test."""
    with running_redis(tmp_path) as server:
        yield server


async def _until(predicate: object, within: float = 10.0) -> None:
    async with asyncio.timeout(within):
        while not predicate():  # type: ignore[operator]
            await asyncio.sleep(0.02)


async def test_a_delayed_chess_game_reaches_edges_only_when_the_hub_releases_it(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    venue = chess_venue(delay_s=60.0)
    log = EventLog(tmp_path / "log.sqlite3")
    log.open()
    hall = Hall(venue, log, Fanout())
    hall.load(now=START)
    log.start()
    publisher = BusPublisher(redis_server.url, venue, hub_url="http://hall/")
    publisher.attach(hall)
    edge = EdgeHall(venue, Fanout())
    reader = BusReader(redis_server.url, venue, edge.apply)

    def same() -> bool:
        ours, theirs = edge.public_match("G1"), hall.public_match("G1")
        return (
            ours.version == theirs.version
            and edge.spectator_view(ours) == hall.spectator_view(theirs)
            and edge.team_view("TM") == hall.team_view("TM")
            and game_pgn(ours, venue) == game_pgn(theirs, venue)
        )

    async with asyncio.TaskGroup() as tg:
        writing = tg.create_task(publisher.run())
        reading = tg.create_task(reader.run())
        end = feed_game(hall, venue, MOVES)
        await log.flush()
        await _until(lambda: publisher.health.state == "connected" and reader.health.state == "connected")
        await asyncio.sleep(0.3)
        assert publisher.written == 0  # committed, but not public yet: nothing on the bus
        assert edge.public_match("G1").status is MatchStatus.SCHEDULED

        cut = START + 5.0 + 60.0 + 2.0
        assert hall.release(cut) > 0
        await _until(same)
        shown = edge.public_match("G1").info.rules.to_dict(edge.public_match("G1").sport_state)["moves"]
        assert 0 < len(shown) < len(MOVES) and all(m["at"] <= cut - 60.0 for m in shown)
        assert edge.spectator_view(edge.public_match("G1"))["broadcast_delay_s"] == 60.0

        hall.release(end + 60.0)
        await _until(same)
        assert edge.public_match("G1").version == hall.match("G1").version
        writing.cancel()
        reading.cancel()
    await log.close()
