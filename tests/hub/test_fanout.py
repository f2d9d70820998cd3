"""Fan-out: each client's queue coalesces to the latest version per topic, and a stuck client is closed
without holding up the others (real uvicorn server, real sockets)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import zlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from websockets.asyncio.client import connect

from hub.feed.fanout import Fanout
from hub.feed.protocol import server_config
from hub.hall.live import Hall
from hub.ingest.sink import Ingest
from hub.log.eventlog import EventLog
from hub.matches import MatchInfo
from hub.referee.tokens import Authenticator
from hub.venue import TableConfig, Venue
from hub.web import WebContext, create_app
from tests.conftest import free_port


@contextlib.asynccontextmanager
async def served_hall(
    tmp_path: Path,
    tables: int = 1,
    *,
    protocol: str = "hub",
    server: dict[str, Any] | None = None,
    **context: Any,
) -> AsyncIterator[tuple[int, Fanout, WebContext]]:
    """A real hall (log, fan-out) behind a real uvicorn server: yields (port, fan-out, web context).

    `protocol="hub"` serves `/ws` on the hub's own protocol (the fan-out writes to sockets itself); anything
    else on uvicorn's stock one, as another ASGI server would (a writer task per client)."""
    log = EventLog(tmp_path / "log.sqlite3")
    log.open()
    venue = Venue(
        "T",
        tuple(TableConfig(f"T{i}", "tabletennis") for i in range(1, tables + 1)),
        tuple(MatchInfo(f"M{i}", "tabletennis", f"T{i}") for i in range(1, tables + 1)),
    )
    fanout = Fanout()
    hall = Hall(venue, log, fanout)
    hall.load()
    ctx = WebContext(hall, fanout, Ingest(hall), Authenticator([]), **context)
    port = free_port()
    if protocol == "hub":
        config = server_config(create_app(ctx), port=port, **(server or {}))
    else:
        config = uvicorn.Config(create_app(ctx), port=port, ws="websockets-sansio", lifespan="off")
    uvicorn_server = uvicorn.Server(config)
    try:
        async with asyncio.TaskGroup() as tg:
            tg.create_task(uvicorn_server.serve())
            while not uvicorn_server.started:
                await asyncio.sleep(0.01)
            try:
                yield port, fanout, ctx
            finally:
                uvicorn_server.should_exit = True
    finally:
        await log.close()


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


@pytest.mark.parametrize("protocol", ["hub", "plain-asgi"])
async def test_a_stuck_client_is_closed_and_readers_keep_getting_every_latest_version(
    tmp_path: Path, protocol: str
) -> None:
    """With the hub's protocol the fan-out writes to sockets itself; under plain ASGI a task per client."""
    big = "x" * 60_000  # big frames fill the stuck client's socket buffers quickly
    async with served_hall(tmp_path, protocol=protocol, stuck_after_s=0.5) as (port, fanout, ctx):
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

        async def read_to_the_end(ws) -> int:  # a reader reads as changes come, and sees versions only rise
            latest = 0
            while latest < 200:
                message = json.loads(await ws.recv())
                assert message["version"] > latest
                latest = message["version"]
            return latest

        try:
            async with asyncio.timeout(10), asyncio.TaskGroup() as reading:
                reads = [reading.create_task(read_to_the_end(ws)) for ws in readers]
                for version in range(1, 201):
                    fanout.publish("venue", version, {"id": "M1", "version": version, "pad": big}, key="M1")
                    await asyncio.sleep(0.005)
            assert [r.result() for r in reads] == [200, 200, 200]
            async with asyncio.timeout(5):
                while ctx.closed_stuck < 1 or len(fanout.clients) > 3:
                    await asyncio.sleep(0.05)
            assert ctx.closed_stuck == 1
            assert len(fanout.clients) == 3
        finally:
            for ws in readers:
                await ws.close()
            stuck.close()


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
    async with served_hall(tmp_path) as (port, fanout, _), connect(f"ws://127.0.0.1:{port}/ws") as ws:
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


class RecordingLink:
    """The fan-out's side of a socket, recorded: what a sans-I/O core is tested against."""

    def __init__(self, deflate: bool = False) -> None:
        self.writes: list[bytes] = []
        self.unsent = 0  # what the socket has not taken: a test sets it to play a client that stopped reading
        self.deflate = deflate
        self.closed: tuple[int, str] | None = None

    def send_frames(self, data: bytes) -> None:
        self.writes.append(data)

    def buffered(self) -> int:
        return self.unsent

    def close_stuck(self, code: int, reason: str) -> None:
        self.closed = (code, reason)

    def messages(self, write: bytes) -> list:
        """The JSON messages in one write (unmasked server frames, compressed or not)."""
        out, pos = [], 0
        while pos < len(write):
            first, n = write[pos], write[pos + 1]
            pos += 2
            if n == 126:
                n, pos = int.from_bytes(write[pos : pos + 2], "big"), pos + 2
            payload, pos = write[pos : pos + n], pos + n
            if first & 0x40:
                payload = zlib.decompressobj(-15).decompress(payload + b"\x00\x00\xff\xff")
            out.append(json.loads(payload))
        return out


def _fanout(**kwargs) -> Fanout:
    fanout = Fanout(**kwargs)
    fanout.add_source(lambda topic: lambda: (0, {"snapshot": topic}))
    return fanout


async def test_a_topic_with_a_large_audience_gathers_its_changes_into_one_write_per_client() -> None:
    fanout = _fanout(writes_per_s=100)  # two watchers: a window of 20 ms
    plain, batch = RecordingLink(), RecordingLink()
    subs = [fanout.connect(plain), fanout.connect(batch)]
    fanout.set_batch(subs[1], True)
    for sub in subs:
        fanout.subscribe(sub, "venue")
    await asyncio.sleep(0.03)  # the first change after a quiet spell goes at once; the rest wait their turn
    for version in range(1, 6):
        fanout.publish("venue", version, {"id": "M1", "v": version}, key="M1")
    fanout.publish("venue", 6, {"id": "M2", "v": 6}, key="M2")
    await asyncio.sleep(0.05)
    changes = plain.writes[1:]
    assert sum(len(plain.messages(w)) for w in changes) == 6  # every change, as its own frame
    assert len(changes) <= 2  # ... in at most two writes (the first at once, the rest after the window)
    arrays = [batch.messages(w)[0] for w in batch.writes[1:]]
    latest = {m["data"]["id"]: m["version"] for array in arrays for m in array}
    assert latest == {"M1": 5, "M2": 6}
    assert all(isinstance(a, list) for a in arrays)


async def test_a_client_that_stops_reading_costs_one_mark_then_gets_the_latest_of_each_key() -> None:
    fanout = _fanout()
    link = RecordingLink()
    sub = fanout.connect(link)
    fanout.subscribe(sub, "venue")
    link.unsent = 1 << 20  # its socket is full
    for version in range(1, 101):
        fanout.publish("venue", version, {"id": f"M{version % 3}", "v": version}, key=f"M{version % 3}")
    assert len(link.writes) == 1 and sub.backlog == 1  # only the snapshot was written; one cursor kept
    link.unsent = 0  # it reads again
    await asyncio.sleep(0.12)
    delivered = [m for w in link.writes[1:] for m in link.messages(w)]
    assert [(m["data"]["id"], m["version"]) for m in delivered] == [("M2", 98), ("M0", 99), ("M1", 100)]
    assert sub.coalesced == 97 and sub.direct
    fanout.publish("venue", 101, {"id": "M1", "v": 101}, key="M1")  # back on the direct path
    assert link.messages(link.writes[-1])[0]["version"] == 101


async def test_a_client_back_from_behind_never_gets_a_change_of_the_open_window_twice_or_out_of_order() -> (
    None
):
    fanout = _fanout(writes_per_s=10, stuck_after_s=60)  # one watcher: a window of 100 ms
    link = RecordingLink()
    sub = fanout.connect(link)
    fanout.subscribe(sub, "match:M1")
    await asyncio.sleep(0.11)
    fanout.publish("match:M1", 1, {"v": 1})  # the first after a quiet spell: at once
    await asyncio.sleep(0)
    link.unsent = 1 << 20  # it stops reading; the next window's changes are marked owed
    for version in range(2, 5):
        fanout.publish("match:M1", version, {"v": version})
    await asyncio.sleep(0.11)
    link.unsent = 0  # it reads again while the next window is still gathering
    for version in range(5, 8):
        fanout.publish("match:M1", version, {"v": version})
    await asyncio.sleep(0.25)  # the drain timer, then that window's end
    versions = [m["version"] for w in link.writes[1:] for m in link.messages(w)]
    assert versions == sorted(set(versions)) and versions[-1] == 7  # only up, each once, to the latest
    # 2-4 were skipped while it was behind (the latest of their key, 7, was still gathering); 5-7 came with
    # their window
    assert versions == [1, 5, 6, 7] and sub.coalesced == 3


async def test_a_client_whose_socket_stays_full_is_closed_and_forgotten() -> None:
    fanout = _fanout(stuck_after_s=0.2)
    stuck, reader = RecordingLink(), RecordingLink()
    subs = [fanout.connect(stuck), fanout.connect(reader)]
    for sub in subs:
        fanout.subscribe(sub, "match:M1")
    stuck.unsent = 1 << 20
    for version in range(1, 40):
        fanout.publish("match:M1", version, {"v": version})
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.15)
    assert stuck.closed is not None and stuck.closed[0] == 1013
    assert fanout.closed_stuck == 1 and subs[0] not in fanout.clients
    assert [reader.messages(w)[0]["version"] for w in reader.writes[1:]] == list(range(1, 40))


async def test_large_messages_go_compressed_to_clients_that_take_them_and_plain_to_others() -> None:
    fanout = _fanout()
    zipped, plain = RecordingLink(deflate=True), RecordingLink()
    for link in (zipped, plain):
        fanout.subscribe(fanout.connect(link), "match:M1")
    big = {"points_log": [[1, 0]] * 400}
    fanout.publish("match:M1", 1, big)
    fanout.publish("match:M1", 2, {"v": 2})  # small: plain for everyone
    assert zipped.writes[1][0] == 0xC1 and plain.writes[1][0] == 0x81  # RSV1 marks a compressed message
    assert len(zipped.writes[1]) < len(plain.writes[1]) / 5
    assert zipped.messages(zipped.writes[1])[0]["data"] == plain.messages(plain.writes[1])[0]["data"] == big
    assert zipped.writes[2][0] == 0x81


async def test_a_topic_never_goes_back_a_version() -> None:
    fanout = _fanout()
    link = RecordingLink()
    fanout.subscribe(fanout.connect(link), "match:M1")
    fanout.publish("match:M1", 5, {"v": 5})
    fanout.publish("match:M1", 4, {"v": 4})
    assert [link.messages(w)[0]["version"] for w in link.writes[1:]] == [5]
    assert fanout.stale == 1


async def test_the_hub_negotiates_deflate_without_context_takeover_and_compresses_large_messages_once(
    tmp_path: Path,
) -> None:
    """A raw client offers permessage-deflate as browsers do; the snapshot of a 30-table wall comes compressed."""
    async with served_hall(tmp_path, tables=30) as (port, _, _):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(
                b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                b"Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n"
            )
            head = (await reader.readuntil(b"\r\n\r\n")).decode().lower()
            assert " 101 " in head
            assert "permessage-deflate" in head and "server_no_context_takeover" in head
            request = json.dumps({"subscribe": ["venue"]}).encode()
            writer.write(bytes([0x81, 0x80 | len(request)]) + b"\x00\x00\x00\x00" + request)
            first, second = await reader.readexactly(2)
            length = second
            if length == 126:
                length = int.from_bytes(await reader.readexactly(2), "big")
            payload = await reader.readexactly(length)
            assert first == 0xC1  # FIN, RSV1 (compressed), text
            snapshot = json.loads(zlib.decompressobj(-15).decompress(payload + b"\x00\x00\xff\xff"))
            assert snapshot["snapshot"] is True and len(snapshot["data"]["matches"]) == 30
            assert length < len(json.dumps(snapshot)) / 4
        finally:
            writer.close()
