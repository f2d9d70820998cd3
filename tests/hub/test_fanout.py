"""Fan-out: each client's queue coalesces to the latest version per topic, and a stuck client is closed
without holding up the others (real uvicorn server, real sockets)."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path

import uvicorn
from websockets.asyncio.client import connect

from hub.auth import Authenticator
from hub.eventlog import EventLog
from hub.fanout import Fanout
from hub.hall import Hall
from hub.ingest import Ingest
from hub.matches import MatchInfo
from hub.venue import TableConfig, Venue
from hub.web import WebContext, create_app
from tests.conftest import free_port


async def test_queue_keeps_only_the_latest_version_per_topic_and_key() -> None:
    fanout = Fanout()
    fanout.add_source(lambda topic: (lambda: (0, {})) if topic in ("venue", "match:a") else None)
    sub = fanout.connect()
    fanout.subscribe(sub, "venue")
    fanout.subscribe(sub, "match:a")
    await sub.take()  # the two snapshots
    for version in range(1, 6):
        fanout.publish("match:a", version, {"v": version})
        fanout.publish("venue", version, {"id": "a", "v": version}, key="a")
    fanout.publish("venue", 6, {"id": "b"}, key="b")
    frames = [json.loads(text) for text in await sub.take()]
    assert [(f["topic"], f["version"]) for f in frames] == [("match:a", 5), ("venue", 5), ("venue", 6)]
    assert sub.coalesced == 8


async def test_an_older_version_never_replaces_a_newer_one() -> None:
    fanout = Fanout()
    fanout.add_source(lambda topic: (lambda: (0, {})) if topic == "match:a" else None)
    sub = fanout.connect()
    fanout.subscribe(sub, "match:a")
    await sub.take()
    fanout.publish("match:a", 7, {"v": 7})
    fanout.publish("match:a", 6, {"v": 6})
    assert [json.loads(t)["version"] for t in await sub.take()] == [7]


async def test_subscriptions_per_client_are_limited() -> None:
    fanout = Fanout(max_topics_per_client=2)
    fanout.add_source(lambda topic: lambda: (0, {}))
    sub = fanout.connect()
    fanout.subscribe(sub, "a")
    fanout.subscribe(sub, "b")
    try:
        fanout.subscribe(sub, "c")
    except ValueError as refused:
        assert "at most 2 topics" in str(refused)
    else:
        raise AssertionError("a third topic was accepted")


async def test_a_stuck_client_is_closed_and_readers_keep_getting_every_latest_version(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "log.sqlite3")
    log.open()
    venue = Venue("T", (TableConfig("T1", "tabletennis"),), (MatchInfo("M1", "tabletennis", "T1"),))
    fanout = Fanout()
    hall = Hall(venue, log, fanout)
    hall.load()
    ctx = WebContext(hall, fanout, Ingest(hall), Authenticator([]), stuck_after_s=0.5)
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(ctx), port=port, ws="websockets-sansio", log_level="error", lifespan="off")
    )
    big = "x" * 60_000  # big frames fill the stuck client's socket buffers quickly
    async with asyncio.TaskGroup() as tg:
        serving = tg.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.01)
        loop = asyncio.get_running_loop()
        stuck = socket.socket()
        stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stuck.setblocking(False)
        await loop.sock_connect(stuck, ("127.0.0.1", port))
        await loop.sock_sendall(
            stuck,
            b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
        )
        assert b" 101 " in await loop.sock_recv(stuck, 4096)  # after the upgrade it never reads again
        request = json.dumps({"subscribe": ["venue"]}).encode()
        await loop.sock_sendall(stuck, bytes([0x81, 0x80 | len(request)]) + b"\x00\x00\x00\x00" + request)
        readers = [await connect(f"ws://127.0.0.1:{port}/ws", max_size=None) for _ in range(3)]
        for ws in readers:
            await ws.send(json.dumps({"subscribe": ["venue"]}))
            assert json.loads(await ws.recv())["snapshot"] is True
        try:
            for version in range(1, 201):
                fanout.publish("venue", version, {"id": "M1", "version": version, "pad": big}, key="M1")
                await asyncio.sleep(0.005)
            async with asyncio.timeout(5):
                for ws in readers:
                    latest = 0
                    while latest < 200:
                        message = json.loads(await ws.recv())
                        assert message["version"] > latest
                        latest = message["version"]
                while ctx.closed_stuck < 1 or len(fanout.clients) > 3:
                    await asyncio.sleep(0.05)
            assert ctx.closed_stuck == 1
            assert len(fanout.clients) == 3
        finally:
            for ws in readers:
                await ws.close()
            stuck.close()
            server.should_exit = True
            await serving
    await log.close()


async def test_a_snapshot_is_built_once_per_version_however_many_clients_join() -> None:
    builds = []
    version = 1

    def build() -> dict:
        builds.append(version)
        return {"v": version}

    fanout = Fanout()
    fanout.add_source(lambda topic: (lambda: (version, build)) if topic == "venue" else None)
    subs = [fanout.connect() for _ in range(50)]
    for sub in subs:
        fanout.subscribe(sub, "venue")
    assert builds == [1]
    version = 2
    late = fanout.connect()
    fanout.subscribe(late, "venue")
    assert builds == [1, 2]
    assert json.loads((await late.take())[0])["data"] == {"v": 2}


async def test_a_client_that_asks_for_batches_gets_one_array_per_tick_with_the_latest_of_each(
    tmp_path: Path,
) -> None:
    log = EventLog(tmp_path / "log.sqlite3")
    log.open()
    venue = Venue("T", (TableConfig("T1", "tabletennis"),), (MatchInfo("M1", "tabletennis", "T1"),))
    fanout = Fanout()
    hall = Hall(venue, log, fanout)
    hall.load()
    ctx = WebContext(hall, fanout, Ingest(hall), Authenticator([]))
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(ctx), port=port, ws="websockets-sansio", log_level="error", lifespan="off")
    )
    async with asyncio.TaskGroup() as tg:
        serving = tg.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.01)
        async with connect(f"ws://127.0.0.1:{port}/ws") as ws:
            await ws.send(json.dumps({"subscribe": ["venue"], "batch": 0.3}))
            first = json.loads(await ws.recv())
            assert isinstance(first, list) and first[0]["snapshot"] is True
            for version in range(1, 51):  # 50 changes of two matches within one tick
                fanout.publish("venue", version, {"id": "M1", "v": version}, key="M1")
                fanout.publish("venue", version, {"id": "M2", "v": version}, key="M2")
            async with asyncio.timeout(2):
                batch = json.loads(await ws.recv())
                while batch[-1]["version"] < 50:
                    batch = json.loads(await ws.recv())
            assert [(m["data"]["id"], m["version"]) for m in batch][-2:] == [("M1", 50), ("M2", 50)]
            await ws.send(json.dumps({"batch": "often"}))
            assert "batch must be" in json.loads(await ws.recv())["error"]  # errors are answered at once
        server.should_exit = True
        await serving
    await log.close()
