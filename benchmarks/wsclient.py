"""A cheap WebSocket client fleet for one process: raw asyncio sockets, the upgrade done by hand.

Run by the benchmarks as ``python -m benchmarks.wsclient``; it talks line-JSON on stdin/stdout:

1. stdin: the config (``host``, ``port``, ``path``, ``topics``: one list of topics per client, ``mode``,
   ``cpu``, ``connect_deadline``, ``timed_every``: only every k-th client times its frames, the others read
   and count them, so a fleet can carry more load than one core could time). It connects every client (those not connected by the deadline fail), sends ``{"subscribe": topics}``, waits for the first frame
   (the snapshot), then prints ``{"ready": n, "failed": k}``.
2. stdin: ``{"t0": epoch, "t1": epoch}``, the measuring window. Frames are counted or timed only inside it.
3. after ``t1`` it prints its result; in ``version`` mode it first reads ``{"map": {match: {version: t}}}``.
4. stdin closed or ``{"exit": true}``: it closes every socket and exits.

Modes: ``count`` counts frames; ``updated`` times each change frame by the ``updated_at`` it carries (the
hub's change time, same machine clock); ``version`` records ``(match id, match version, receive time)``
to be matched with the device write times the server learns after the run; ``silent`` connects,
subscribes and then never reads again (a tiny receive buffer so it blocks at once); ``check`` counts
frames and checks each change (see `Client._check`): per client and topic the versions must only go up,
a version that does not is counted in ``backwards``, the versions skipped between two it got in ``gaps``
(a batch, the latest of each key, is checked in version order; a compressed frame is inflated first).

Every result also says what the process cost inside the window: ``cpu_s`` (its CPU time) and ``ready_s``
(CPU time plus time spent runnable but waiting for a CPU, from /proc/self/task/*/schedstat), over ``wall_s``.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import os
import re
import socket
import sys
import time
import zlib
from collections import Counter

import orjson

KEY = b"dGhlIHNhbXBsZSBub25jZQ=="
CHANGE = re.compile(rb'\{"topic":"([^"]*)","version":([0-9]+)')  # how every change's JSON begins
SNAPSHOT_END = b'"snapshot":true}'
UPDATED_AT = re.compile(rb'"updated_at":(-?[0-9][0-9.eE+-]*)')  # null (never reported) is not timed
BUCKETS_PER_MS = 20  # latency histogram resolution: 0.05 ms (0.25 ms made one step 10 % of a 2.5 ms p99)
CONNECT_BATCH = 100


def _masked(opcode: int, payload: bytes) -> bytes:
    """A client frame; the mask key is zero, so the masked payload is the payload itself."""
    n = len(payload)
    if n < 126:
        header = bytes([0x80 | opcode, 0x80 | n])
    elif n < 65536:
        header = bytes([0x80 | opcode, 0x80 | 126]) + n.to_bytes(2, "big")
    else:
        header = bytes([0x80 | opcode, 0x80 | 127]) + n.to_bytes(8, "big")
    return header + b"\x00\x00\x00\x00" + payload


class Fleet:
    """What every client of this process reports into."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.batch = False
        self.t0 = float("inf")
        self.t1 = float("inf")
        self.frames = 0
        self.frames_total = 0
        self.hist: Counter[int] = Counter()
        # with phases: boundaries t0 = b0 < b1 < … < bn = t1, and a histogram for each [b(k), b(k+1))
        self.phases: list[float] = []
        self.hists: list[Counter[int]] = []
        self.records: list[tuple[bytes, int, float]] = []
        self.closed = 0
        # check mode, inside the window: changes received, versions skipped, versions not above the last
        self.checked = 0
        self.gaps = 0
        self.backwards = 0
        self.payload_bytes = 0
        self.close_codes: Counter[int] = Counter()
        self.unparsed = 0


class Client(asyncio.Protocol):
    """One WebSocket client that parses frame headers and nothing it does not need."""

    def __init__(self, fleet: Fleet, request: bytes, subscribe: bytes, timed: bool = True) -> None:
        self.fleet = fleet
        self.timed = timed  # times what it receives (else only reads and counts it)
        self.request = request
        self.subscribe = subscribe
        self.buf = bytearray()
        self.upgraded = False
        self.first = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        self.gone = False
        self.last: dict[bytes, int] = {}  # check mode: topic -> the last version received

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.transport.write(self.request)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.gone:
            self.gone = True
            self.fleet.closed += 1
        if not self.first.done():
            self.first.set_exception(ConnectionError("closed before the first frame"))

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        if not self.upgraded:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            if not buf.startswith(b"HTTP/1.1 101"):
                self.first.set_exception(ConnectionError(bytes(buf[:80]).decode("latin-1")))
                self.transport.close()
                return
            del buf[: end + 4]
            self.upgraded = True
            self.transport.write(self.subscribe)
        now = time.time()
        fleet = self.fleet
        inside = fleet.t0 <= now < fleet.t1
        if inside and fleet.phases:  # a read's frames all go to the phase it came in
            fleet.hist = fleet.hists[bisect.bisect_right(fleet.phases, now) - 1]
        pos, size = 0, len(buf)
        while size - pos >= 2:
            b0, b1 = buf[pos], buf[pos + 1] & 0x7F
            if b1 < 126:
                start = pos + 2
            elif b1 == 126:
                if size - pos < 4:
                    break
                b1 = int.from_bytes(buf[pos + 2 : pos + 4], "big")
                start = pos + 4
            else:
                if size - pos < 10:
                    break
                b1 = int.from_bytes(buf[pos + 2 : pos + 10], "big")
                start = pos + 10
            end = start + b1
            if end > size:
                break
            opcode = b0 & 0x0F
            if opcode == 1 or opcode == 2:
                fleet.frames_total += 1
                if not self.first.done():
                    self.first.set_result(None)
                elif fleet.mode == "check":
                    self._check(buf, start, end, inside, compressed=bool(b0 & 0x40))
                elif inside:
                    fleet.frames += 1
                    if self.timed and fleet.mode != "count":
                        if b0 & 0x40:  # compressed on its own (permessage-deflate, no context takeover)
                            data = zlib.decompressobj(-15).decompress(
                                bytes(buf[start:end]) + b"\x00\x00\xff\xff"
                            )
                            self._time(data, 0, len(data), now)
                        else:
                            self._time(buf, start, end, now)
            elif opcode == 8:
                code = int.from_bytes(buf[start : start + 2], "big") if b1 >= 2 else 1005
                fleet.close_codes[code] += 1
                self.transport.close()
            elif opcode == 9:
                self.transport.write(_masked(10, bytes(buf[start:end])))
            pos = end
        if pos:
            del buf[:pos]

    def _check(self, buf: bytearray | bytes, start: int, end: int, inside: bool, compressed: bool) -> None:
        """Check one frame's changes (see `_change`); count the frame inside the window."""
        fleet = self.fleet
        if inside:
            fleet.frames += 1
            fleet.payload_bytes += end - start
        if compressed:  # on its own (permessage-deflate, no context takeover)
            buf = zlib.decompressobj(-15).decompress(bytes(buf[start:end]) + b"\x00\x00\xff\xff")
            start, end = 0, len(buf)
        found = CHANGE.match(buf, start, end)
        if found is not None:
            if buf.endswith(SNAPSHOT_END, start, end):  # a snapshot holds everything so far: count afresh
                self.last.pop(found[1], None)
            else:
                self._change(found[1], int(found[2]), inside)
        elif buf[start] == 0x5B:  # '[': a batch, the latest of each key: checked in version order
            items = orjson.loads(bytes(buf[start:end]))
            for item in items:
                if item.get("snapshot"):
                    self.last.pop(str(item.get("topic")).encode(), None)
            changes = [item for item in items if not item.get("snapshot")]
            for item in sorted(changes, key=lambda i: int(i.get("version", 0))):
                self._change(str(item.get("topic")).encode(), int(item.get("version", 0)), inside)
        else:
            fleet.unparsed += 1

    def _change(self, topic: bytes, version: int, inside: bool) -> None:
        """One change: per topic, versions must only go up; count what was skipped (inside the window).

        The first change after a topic's snapshot starts its count, so a client is never charged for what
        happened before it subscribed."""
        last = self.last.get(topic)
        if last is None or version > last:
            self.last[topic] = version
        if not inside:
            return
        fleet = self.fleet
        fleet.checked += 1
        if last is not None and version != last + 1:
            if version <= last:
                fleet.backwards += 1
            else:
                fleet.gaps += version - last - 1

    def _time(self, buf: bytearray | bytes, start: int, end: int, now: float) -> None:
        if buf[start] == 0x5B:  # '[': a batch; time every change in it
            if self.fleet.mode == "updated" and buf.find(b'"snapshot":true', start, end) < 0:
                self._time_updated(buf, start, end, now)  # each change carries one updated_at
            else:
                self._time_batch(orjson.loads(bytes(buf[start:end])), now)
            return
        if buf.find(b'"snapshot":true', start, end) >= 0:
            return  # a snapshot says where things stand, not when they changed
        fleet = self.fleet
        if fleet.mode == "updated":
            if self._time_updated(buf, start, end, now) == 0:
                fleet.unparsed += 1
        else:  # version
            i = buf.find(b'"data":{"id":"', start, end)
            if i < 0:
                fleet.unparsed += 1
                return
            i += 14
            j = buf.find(b'"', i, end)
            k = buf.find(b'"version":', j, end) + 10
            m = k
            while 48 <= buf[m] <= 57:
                m += 1
            fleet.records.append((bytes(buf[i:j]), int(buf[k:m]), now))

    def _time_updated(self, buf: bytearray | bytes, start: int, end: int, now: float) -> int:
        """Time every `"updated_at":` in buf[start:end] (one per change) without parsing the rest; how many."""
        fleet = self.fleet
        timed = 0
        for match in UPDATED_AT.finditer(buf, start, end):
            fleet.hist[int((now - float(match[1])) * 1000 * BUCKETS_PER_MS)] += 1
            timed += 1
        return timed

    def _time_batch(self, items: list, now: float) -> None:
        fleet = self.fleet
        for item in items:
            if item.get("snapshot") or not isinstance(item.get("data"), dict):
                continue
            data = item["data"]
            if fleet.mode == "updated":
                at = data.get("updated_at")
                if not isinstance(at, int | float):
                    fleet.unparsed += 1
                    continue
                fleet.hist[int((now - at) * 1000 * BUCKETS_PER_MS)] += 1
            else:
                fleet.records.append((str(data.get("id", "")).encode(), int(data.get("version", 0)), now))


async def _connect(
    loop: asyncio.AbstractEventLoop,
    fleet: Fleet,
    host: str,
    port: int,
    request: bytes,
    topics: list[str],
    timed: bool = True,
) -> Client:
    request_body: dict = {"subscribe": topics}
    if fleet.batch:
        request_body["batch"] = True
    subscribe = _masked(1, orjson.dumps(request_body))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if fleet.mode == "silent":
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await loop.sock_connect(sock, (host, port))
    _, client = await loop.create_connection(lambda: Client(fleet, request, subscribe, timed), sock=sock)
    async with asyncio.timeout(30):
        await client.first
    if fleet.mode == "silent":
        client.transport.pause_reading()
    return client


async def main() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 26)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    config = orjson.loads(await reader.readline())
    if config.get("cpu") is not None:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {config["cpu"]})
    fleet = Fleet(config["mode"])
    fleet.batch = bool(config.get("batch"))
    host, port = config["host"], config["port"]
    request = (
        f"GET {config.get('path', '/ws')} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {KEY.decode()}\r\nSec-WebSocket-Version: 13\r\n"
        # offered as browsers offer it; a server may answer with compressed messages
        "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n"
    ).encode()
    clients: list[Client] = []
    failed = 0
    topics = config["topics"]
    timed_every = max(1, int(config.get("timed_every", 1)))  # every k-th client times its frames
    deadline = config.get("connect_deadline") or time.time() + 60
    for first in range(0, len(topics), CONNECT_BATCH):
        batch = topics[first : first + CONNECT_BATCH]
        left = deadline - time.time()
        if left <= 0:
            failed += len(batch)
            continue
        done = await asyncio.gather(
            *(
                asyncio.wait_for(
                    _connect(loop, fleet, host, port, request, t, (first + n) % timed_every == 0), left
                )
                for n, t in enumerate(batch)
            ),
            return_exceptions=True,
        )
        for item in done:
            if isinstance(item, BaseException):
                failed += 1
            else:
                clients.append(item)
    fleet.closed = 0  # count only what closes from now on
    _say({"ready": len(clients), "failed": failed})
    window = orjson.loads(await reader.readline())
    fleet.t0, fleet.t1 = window["t0"], window["t1"]
    if window.get("phases"):
        fleet.phases = [float(b) for b in window["phases"]]
        fleet.hists = [Counter() for _ in fleet.phases[1:]]
    await asyncio.sleep(max(0.0, fleet.t0 - time.time()))
    wall0, cpu0, ready0 = time.time(), _cpu_s(), _ready_s()
    await asyncio.sleep(max(0.0, fleet.t1 - time.time()))
    wall1, cpu1, ready1 = time.time(), _cpu_s(), _ready_s()
    await asyncio.sleep(0.05)
    result = {
        "clients": len(clients),
        "cpu_s": cpu1 - cpu0,
        "ready_s": ready1 - ready0,
        "wall_s": wall1 - wall0,
        "frames": fleet.frames,
        "frames_total": fleet.frames_total,
        "closed": fleet.closed,
        "close_codes": {str(k): v for k, v in fleet.close_codes.items()},
        "unparsed": fleet.unparsed,
    }
    if fleet.mode == "check":
        result.update(
            checked=fleet.checked,
            gaps=fleet.gaps,
            backwards=fleet.backwards,
            payload_bytes=fleet.payload_bytes,
        )
    if fleet.mode == "updated" and fleet.phases:
        result["hists"] = [{str(k): v for k, v in hist.items()} for hist in fleet.hists]
    elif fleet.mode == "updated":
        result["hist"] = {str(k): v for k, v in fleet.hist.items()}
    elif fleet.mode == "version":
        _say({"records": len(fleet.records), "closed": fleet.closed})
        sent = orjson.loads(await reader.readline())["map"]
        written = {mid.encode(): {int(v): t for v, t in versions.items()} for mid, versions in sent.items()}
        hist: Counter[int] = Counter()
        unmatched = 0
        for mid, version, at in fleet.records:
            t = written.get(mid, {}).get(version)
            if t is None:
                unmatched += 1
            else:
                hist[int((at - t) * 1000 * BUCKETS_PER_MS)] += 1
        result["hist"] = {str(k): v for k, v in hist.items()}
        result["unmatched"] = unmatched
    _say(result)
    with contextlib.suppress(Exception):
        async with asyncio.timeout(30):
            await reader.readline()
    for client in clients:
        if client.transport is not None:
            client.transport.abort()


def _cpu_s() -> float:
    """This process's CPU time (user and system), seconds."""
    t = os.times()
    return t.user + t.system


def _ready_s() -> float:
    """CPU time plus time spent runnable but waiting for a CPU, over every thread of this process (seconds):
    what the process wanted, which on a shared machine can be more than it got."""
    return ready_s(os.getpid())


def ready_s(pid: int) -> float:
    """The same for any process (0.0 where /proc has no schedstat)."""
    total = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0.0
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                on_cpu, waiting, _ = f.read().split()
        except (OSError, ValueError):
            continue
        total += int(on_cpu) + int(waiting)
    return total / 1e9


def _say(message: dict) -> None:
    sys.stdout.write(orjson.dumps(message).decode() + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    try:  # the load generator on libuv: one client core then carries several times the frames
        import uvloop
    except ImportError:
        asyncio.run(main())
    else:
        uvloop.run(main())
