"""Several halls over Redis Streams: hall hubs publish, spectator edges serve, against a real redis-server.

The suite starts `redis-server` itself on a free port (fails, never skips, when it cannot). Hubs and edges
run as real `boardcast serve --bus` / `boardcast edge` processes; spectators are real WebSocket clients
that reconnect and resume as the pages do. Edges, Redis and a hub are killed with SIGKILL.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from hub.bus.edge import EdgeHall
from hub.bus.streams import BusPublisher, BusReader, Keys, PublicChange
from hub.bus.url import BusUrlError, check_bus_url
from hub.feed.fanout import Fanout
from hub.matches import MatchInfo, new_match, to_snapshot
from hub.venue import Venue
from tests.bussupport import (
    TOKEN,
    RedisServer,
    edge_node,
    health,
    hub_node,
    points,
    poll,
    running_redis,
    spectators,
    venue_file,
)
from tests.conftest import ROOT, get_json
from tests.hubsupport import post_json


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A real redis-server for the test."""
    with running_redis(tmp_path) as server:
        yield server


# -- the whole story --------------------------------------------------------------------------------------


async def test_two_hubs_two_edges_survive_an_edge_kill_a_redis_restart_and_a_hub_kill(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    bus = redis_server.url
    va = venue_file(tmp_path / "a.toml", "Salon A", "A")
    vb = venue_file(tmp_path / "b.toml", "Salon B", "B")
    hub_a = hub_node(tmp_path, va, bus).start()
    hub_b = hub_node(tmp_path, vb, bus).start()
    edge_a1 = edge_node(tmp_path, va, bus, 1).start()
    edge_a2 = edge_node(tmp_path, va, bus, 2).start()
    edge_b = edge_node(tmp_path, vb, bus, 3).start()
    nodes = [hub_a, hub_b, edge_a1, edge_a2, edge_b]
    try:
        a_topics = ["venue", "match:A1", "match:A2"]
        async with spectators(
            (edge_a1.url, a_topics), (edge_a2.url, a_topics), (edge_b.url, ["venue", "match:B1"])
        ) as (s_a1, s_a2, s_b):
            await poll(lambda: all(s.frames for s in (s_a1, s_a2, s_b)), what="every spectator's snapshots")
            await points(hub_a, "A1", 5)
            await points(hub_b, "B1", 5)
            await poll(lambda: s_a2.latest.get("match:A1") == 5, what="edge a2 shows A1 at version 5")

            # an edge dies: its spectators reconnect to it when it is back, and resume
            edge_a2.kill()
            await points(hub_a, "A1", 5)
            await points(hub_a, "A2", 3, side=1)
            edge_a2.start()

            # Redis dies: the hubs keep serving and taking referee input, holding what they could not send
            redis_server.kill()
            await points(hub_a, "A1", 4)
            await points(hub_b, "B1", 4)
            await poll(lambda: health(hub_a)["bus"]["link"] == "down", what="hub A reports the bus down")
            assert health(hub_a)["bus"]["backlog"] >= 4
            assert get_json(hub_a.url + "api/matches/A1")["version"] == 14  # the hall goes on alone
            redis_server.start()
            await poll(
                lambda: health(hub_a)["bus"]["link"] == "connected" and health(hub_a)["bus"]["backlog"] == 0,
                what="hub A catches up after Redis returns",
            )

            # the hub dies: the edges keep serving its last state; it comes back from its log
            await poll(  # sent is not yet read: the edge takes what the hub sent from Redis in its own time
                lambda: get_json(edge_a1.url + "api/matches/A1")["version"] == 14,
                what="edge A1 has the hub's last state",
            )
            hub_a.kill()
            assert get_json(edge_a1.url + "api/matches/A1")["version"] == 14
            hub_a.start()
            await points(hub_a, "A1", 8)  # 22-0 in points: A1 won 2-0 (best of 3)
            await points(hub_b, "B1", 13)
            for hub, match_id in ((hub_a, "A1"), (hub_b, "B1")):
                status, view = await asyncio.to_thread(
                    post_json, hub.url + f"api/matches/{match_id}/confirm", {}, TOKEN
                )
                assert status == 200 and view["official"], view

            final = {m: get_json(hub_a.url + f"api/matches/{m}") for m in ("A1", "A2")}
            final["B1"] = get_json(hub_b.url + "api/matches/B1")
            assert final["A1"]["status"] == "official" and final["B1"]["status"] == "official"

            def settled() -> bool:
                return all(
                    s.latest.get(f"match:{m}") == final[m]["version"]
                    for s, ms in ((s_a1, ("A1", "A2")), (s_a2, ("A1", "A2")), (s_b, ("B1",)))
                    for m in ms
                )

            await poll(settled, what="every spectator on the latest official state")
            await asyncio.sleep(0.5)  # anything late would show up now
            for s, ms in ((s_a1, ("A1", "A2")), (s_a2, ("A1", "A2")), (s_b, ("B1",))):
                for m in ms:
                    versions = s.match_versions(f"match:{m}")
                    assert versions == sorted(set(versions)), f"{m} went back or repeated: {versions}"
                    assert s.last(f"match:{m}")["data"] == final[m]  # the same view as the hub gives
                    wall = s.venue_versions(m)
                    assert wall == sorted(wall) and wall[-1] == final[m]["version"], wall
            assert s_a2.reconnects >= 1  # it lived through its edge's death
            for edge, m in ((edge_a1, "A1"), (edge_a2, "A1"), (edge_b, "B1")):
                assert get_json(edge.url + f"api/matches/{m}") == final[m]

        # no gap: with Redis on an fsync'd log, the stream holds every version of every match, in order
        client = redis_server.client()
        for venue, ids in ((Venue("Salon A", (), ()), ("A1", "A2")), (Venue("Salon B", (), ()), ("B1",))):
            entries = client.xrange(Keys.of(venue).stream)
            for m in ids:
                seen = [orjson.loads(f[b"data"])["version"] for _, f in entries if f[b"match"] == m.encode()]
                assert seen == sorted(seen), f"{m}: {seen}"
                assert sorted(set(seen)) == list(range(1, final[m]["version"] + 1)), f"{m}: {seen}"

        # referee actions on an edge are refused with the address of the hub that owns the tables
        status, answer = await asyncio.to_thread(
            post_json, edge_a1.url + "api/matches/A1/actions", {"action": "confirm"}, TOKEN
        )
        assert status == 421 and hub_a.url in answer["error"] and answer["owner"] == hub_a.url
        edge_health = health(edge_a1)
        assert edge_health["role"] == "edge" and edge_health["bus"]["link"] == "connected"
        assert edge_health["bus"]["owner"] == hub_a.url
    finally:
        for node in nodes:
            node.stop()


# -- trimming, backlog bounds, ordering: publisher and reader in process, real Redis ------------------------


def _venue(n: int = 1) -> Venue:
    return Venue(
        "Trim Hall", (), tuple(MatchInfo(f"M{i}", "tabletennis", f"T{i}", 1, ("A", "B"), 3) for i in range(n))
    )


class _FakeHall:
    """What BusPublisher.attach needs of a hall: its listeners, public states and venue version."""

    def __init__(self, venue: Venue) -> None:
        self.public_listeners: list[Any] = []
        self.public = {m.id: new_match(m) for m in venue.matches}
        self.venue_version = 0

    def change(self, match_id: str, version: int) -> None:
        state = dataclasses.replace(self.public[match_id], version=version)
        self.public[match_id] = state
        self.venue_version += 1
        for listener in self.public_listeners:
            listener(state, self.venue_version)


async def _until(predicate: Any, within: float = 10.0) -> None:
    async with asyncio.timeout(within):
        while not predicate():
            await asyncio.sleep(0.02)


async def test_a_reader_behind_a_trimmed_stream_resumes_from_the_snapshot(redis_server: RedisServer) -> None:
    venue = _venue()
    hall = _FakeHall(venue)
    publisher = BusPublisher(redis_server.url, venue, hub_url="http://hub/", maxlen=50)
    publisher.attach(hall)
    edge = EdgeHall(venue, Fanout())
    reader = BusReader(redis_server.url, venue, edge.apply)
    async with asyncio.TaskGroup() as tg:
        writing = tg.create_task(publisher.run())
        reading = tg.create_task(reader.run())
        hall.change("M0", 1)
        await _until(lambda: edge.public["M0"].version == 1)
        reading.cancel()  # the edge goes away with its last id; the hub writes far more than the stream keeps
        with contextlib.suppress(asyncio.CancelledError):
            await reading  # it stops (redis-py can swallow a cancellation mid-reply; the reader must not)
        for v in range(2, 1200):
            hall.change("M0", v)
        await _until(lambda: publisher.backlog == 0)
        assert redis_server.client().xlen(Keys.of(venue).stream) < 1000  # trimmed (MAXLEN ~ 50)
        reading = tg.create_task(reader.run())
        await _until(lambda: edge.public["M0"].version == 1199)
        assert reader.trimmed_resumes == 1 and reader.damaged == 0
        reading.cancel()
        writing.cancel()


async def test_the_hub_backlog_is_bounded_while_redis_is_away_and_every_match_ends_current(
    redis_server: RedisServer,
) -> None:
    venue = _venue(3)
    hall = _FakeHall(venue)
    redis_server.kill()
    publisher = BusPublisher(redis_server.url, venue, hub_url="http://hub/", backlog_limit=100)
    publisher.attach(hall)
    async with asyncio.TaskGroup() as tg:
        writing = tg.create_task(publisher.run())
        for v in range(1, 400):
            for m in ("M0", "M1", "M2"):
                hall.change(m, v)
            assert publisher.backlog <= 100
        await _until(lambda: publisher.health.state == "down")
        assert publisher.compactions > 0 and publisher.health_dict()["link"] == "down"
        redis_server.start()
        await _until(lambda: publisher.backlog == 0 and publisher.health.state == "connected", within=15)
        writing.cancel()
    stored = redis_server.client().hgetall(Keys.of(venue).public)
    assert {k.decode(): PublicChange.decode(v).version for k, v in stored.items()} == {
        "M0": 399,
        "M1": 399,
        "M2": 399,
    }


def test_an_edge_never_shows_an_older_version_after_a_newer_one() -> None:
    venue = _venue()
    fanout = Fanout()
    edge = EdgeHall(venue, fanout)
    info = venue.matches[0]

    def change(version: int) -> PublicChange:
        return PublicChange(
            "M0", version, version, to_snapshot(dataclasses.replace(new_match(info), version=version))
        )

    assert edge.apply(change(3))
    published = fanout.published
    assert not edge.apply(change(2)) and not edge.apply(change(3))
    assert fanout.published == published and edge.public_match("M0").version == 3
    assert not edge.apply(
        PublicChange("X9", 1, 1, {})
    )  # a match this venue does not list: counted, not shown
    assert edge.unknown_matches == 1


def test_bus_urls_are_checked() -> None:
    assert check_bus_url("redis://127.0.0.1:6379/0")
    for bad in ("http://x:1/0", "redis:///0", "redis://h:1/x"):
        with pytest.raises(BusUrlError):
            check_bus_url(bad)


def test_cli_refuses_a_bad_bus_url(tmp_path: Path) -> None:
    venue = venue_file(tmp_path / "v.toml", "Salon", "M")
    proc = subprocess.run(
        [sys.executable, "-m", "hub", "edge", "--venue", str(venue), "--bus", "http://nope", "--port", "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 2 and "redis://HOST:PORT/N" in proc.stderr
