"""ingest's live shape: scoreboards on real pseudo-terminals, one frame per read, ours against a bare reader.

Devices: another process (``python -m benchmarks.ingest_live``) holds the master end of one pty per table and
writes each table's frames (HELLO, then the display after every rally of legal matches, as `device_frames`
gives them). Pacing is closed-loop, one frame in flight per table: at "go" it writes every table's first
frame, and it writes a table's next frame only when the reader says, over a pipe (two bytes per frame: the
table's index), that it has taken the last one. So a pty never holds more than one frame, every read can
bring at most one, and both sides get the same offered load: all tables always have a frame waiting, as
many frames per second as the reader can take (the capacity of the reader is what is measured). Neither
side is ever starved by the pacing (the device process answers within one wakeup) nor handed a backlog.

Ours: the real ingest path: `DeviceSession` per table opening the slave path through pyserial (as it would
/dev/ttyACM0), `WireCodec`, message decoding, `Ingest`/`TableSink`, `Hall` (the table-tennis rules),
`EventLog` (WAL, synchronous=FULL, group commit: whatever queued while the last commit ran, up to its
`batch_max`, written by its writer process) and `Fanout` with one subscriber on the venue and every match,
drained. Each table's sink tells the devices after the real sink has taken the read's observations.

Bare: a reader with none of that: the same slave paths opened with `os.open`, read with `os.read` from the
same event loop's `add_reader`, frames cut at the 0x00 delimiter (no decoding, no checks), one row per frame
(id, table, time, raw bytes) queued for a thread that commits with the same durability (WAL,
synchronous=FULL) and the same policy (whatever queued while the last commit ran, up to the same
`batch_max`), and the same acknowledgement to the devices. What ours costs on top is our transport, codec,
rules, log format and publishing.

Both sides count reads that brought bytes and frames taken; frames per read is reported for each (1.0 is
the shape; more than 1.0 would mean the pacing failed). The clock runs from "go" to the last frame's commit.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import os
import queue
import sqlite3
import struct
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from benchmarks.common import ROOT, tt_rallies, tt_venue
from benchmarks.ptydevices import write_all
from boardcast_sim.pty import PtyPair, open_pty_pair
from devices.link import Backoff
from devices.observations import DeviceFamily, DeviceHello, LinkState, Observation
from devices.transports.base import PushReader
from devices.wire.messages import encode_report
from devices.wire.session import DeviceSession, serial_opener
from hub.feed.fanout import Fanout
from hub.hall.live import Hall
from hub.ingest.sink import Ingest
from hub.log.eventlog import EventLog
from hub.server.heap import collect_on_a_clock, settle

BATCH_MAX: int = inspect.signature(EventLog).parameters["batch_max"].default  # the log's group-commit cap
_ACK = struct.Struct("<H")


def device_frames(table: int, rounds: int, best_of: int) -> list[bytes]:
    """What a scoreboard on table `table` sends over `rounds` matches, frame by frame (the first with the
    delimiter a session starts from)."""
    device_id = f"tt-{table + 1}"
    hello = DeviceHello(device_id, DeviceFamily.TT_SCOREBOARD.value, "bench", "bench-1", 1, 1, ("ack",))
    frames = [encode_report(hello, 0)]
    for r in range(rounds):
        for state in tt_rallies(1000 * r + table, best_of):
            frames.append(encode_report(state, len(frames) & 0xFFFF))
    frames[0] = b"\x00" + frames[0]
    return frames


class CountingSink:
    """A table's real TableSink, a shared count of what reached it, and a callback per delivery."""

    def __init__(self, sink: Any, counter: Counter, on_frames: Callable[[int], None] | None = None) -> None:
        self.sink = sink
        self.counter = counter
        self.on_frames = on_frames

    def observe(self, observation: Observation) -> None:
        self.observe_many((observation,))

    def observe_many(self, observations: Sequence[Observation]) -> None:
        self.sink.observe_many(observations)
        if self.on_frames is not None:
            self.on_frames(len(observations))
        self.counter.took(len(observations))

    def link_changed(self, change: Any) -> None:
        self.sink.link_changed(change)
        if change.state is LinkState.CONNECTED:
            self.counter.connected += 1
            if self.counter.connected >= self.counter.links:
                self.counter.all_connected.set()

    def frame_error(self, url: str, device_id: str | None, error: Any, at: float) -> None:
        self.sink.frame_error(url, device_id, error, at)


class Counter:
    """Frames taken and reads made by one side; `done` is set when `total` frames are taken."""

    def __init__(self, total: int, links: int = 0) -> None:
        self.total = total
        self.links = links
        self.frames = 0
        self.reads = 0
        self.connected = 0
        self.done = asyncio.Event()
        self.all_connected = asyncio.Event()

    def took(self, n: int) -> None:
        self.frames += n
        if self.frames >= self.total:
            self.done.set()


class HubRig:
    """The hub's ingest path without its web server: log, hall (rules), ingest, fan-out with one drained
    subscriber on the venue and every match; `start()`/`stop()` around a run."""

    def __init__(self, sizes: dict[str, Any], data: Path) -> None:
        self.venue = tt_venue(sizes["tables"], rounds=sizes["rounds"], best_of=sizes["best_of"])
        self.log = EventLog(data / "events.sqlite3")
        self.fanout = Fanout(max_topics_per_client=100_000)
        self.hall = Hall(self.venue, self.log, self.fanout)
        self.log.open()
        self.hall.load()
        settle()  # as `HubRuntime.open` does
        self.ingest = Ingest(self.hall)
        self.commit_sizes: list[int] = []
        self.log.add_listener(lambda records, inserted: self.commit_sizes.append(len(records)))
        self.delivered = 0
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        """Start the log writer, the fan-out drainer and the garbage collector's clock (as the hub does)."""
        self.log.start()
        watcher = self.fanout.connect()
        for topic in ["venue", *(f"match:{m.id}" for m in self.venue.matches)]:
            self.fanout.subscribe(watcher, topic)

        async def drain() -> None:
            while True:
                self.delivered += len(await watcher.take())
                await asyncio.sleep(0)

        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(drain()), loop.create_task(collect_on_a_clock())]

    async def stop(self) -> dict[str, Any]:
        """Stop the helpers and the log; what the rules made of the run."""
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        committed = self.hall.committed.values()
        result = {
            "anomalies": sum(len(m.anomalies) for m in committed),
            "matches_finished": sum(1 for m in committed if m.status.value == "finished"),
            "frames_fanned_out": self.delivered,
            "frame_errors": sum(h.frame_errors for h in self.ingest.health.values()),
            "commits": self.log.commits,
            "rows": self.log.committed_events,
        }
        await self.log.close()
        return result


# -- the devices' process ----------------------------------------------------------------------------------


class Devices:
    """The benchmark's end of the devices' process: the pty masters are its, the ack pipe is ours."""

    def __init__(self, ptys: list[PtyPair], sizes: dict[str, Any]) -> None:
        self.ptys = ptys
        self.sizes = sizes
        self.ack_read, self.ack_write = os.pipe()
        self.proc: asyncio.subprocess.Process | None = None
        self._acks = bytearray()
        self.acks_sent = 0
        self.ack_writes = 0

    async def start(self) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "benchmarks.ingest_live",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            cwd=ROOT,
            pass_fds=[self.ack_read, *(p.master_fd for p in self.ptys)],
        )
        os.close(self.ack_read)
        for p in self.ptys:  # the device ends are the devices' (across a cable, on a real venue)
            p.close_master()
        config = {
            "fds": [p.master_fd for p in self.ptys],
            "ack_fd": self.ack_read,
            "rounds": self.sizes["rounds"],
            "best_of": self.sizes["best_of"],
        }
        await self._ask(config)

    def cpu_s(self) -> float:
        """CPU seconds the devices' process has used so far."""
        assert self.proc is not None
        return _proc_cpu_s(self.proc.pid)

    def ack(self, table: int, frames: int = 1) -> None:
        """Tell the devices that `table`'s reader took `frames` frames (its device may send the next); the acks
        of one turn of the event loop go in one write, early in the next turn."""
        if not self._acks:
            asyncio.get_running_loop().call_soon(self._send_acks)
        self._acks += _ACK.pack(table) * frames
        self.acks_sent += frames

    def _send_acks(self) -> None:
        acks, self._acks = bytes(self._acks), bytearray()
        self.ack_writes += 1
        view = memoryview(acks)
        while view:  # the pipe holds 32,768 acks: more than all the tables' frames in flight
            view = view[os.write(self.ack_write, view) :]

    async def go(self) -> None:
        """Every table's first frame is written once this returns; the rest follow the acks."""
        await self._ask({"go": True})

    async def finished(self) -> dict[str, Any]:
        """The devices' count of frames written in the last phase."""
        return await self._ask({"report": True})

    async def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.ack_write)
        if self.proc is not None and self.proc.returncode is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                async with asyncio.timeout(5):
                    await self.proc.wait()
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()

    async def _ask(self, message: dict[str, Any]) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(orjson.dumps(message) + b"\n")
        await self.proc.stdin.drain()
        async with asyncio.timeout(30):
            return orjson.loads(await self.proc.stdout.readline())


class _Feed:
    """Each table's frames and the next to write."""

    def __init__(self, fds: list[int], frames: list[list[bytes]]) -> None:
        self.fds = fds
        self.frames = frames
        self.next = [0] * len(fds)
        self.written = 0
        self.rest = b""  # half an ack

    def write_next(self, table: int) -> None:
        k = self.next[table]
        if k < len(self.frames[table]):
            self.next[table] = k + 1
            self.written += 1
            write_all(self.fds[table], self.frames[table][k])


async def _device_main() -> None:
    """The devices' process: write each table's next frame when its reader acknowledges the last."""
    loop = asyncio.get_running_loop()
    stdin = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin)
    config = orjson.loads(await stdin.readline())
    fds: list[int] = config["fds"]
    frames = [device_frames(i, config["rounds"], config["best_of"]) for i in range(len(fds))]
    for fd in fds:
        os.set_blocking(fd, False)
        loop.add_reader(fd, _drop, fd)  # the hub's resync commands: read and dropped
    ack_fd: int = config["ack_fd"]
    os.set_blocking(ack_fd, False)
    feed = _Feed(fds, frames)

    def on_ack() -> None:
        try:
            data = feed.rest + os.read(ack_fd, 65536)
        except BlockingIOError:
            return
        whole = len(data) & ~1
        feed.rest = data[whole:]
        for (table,) in _ACK.iter_unpack(data[:whole]):
            feed.write_next(table)

    loop.add_reader(ack_fd, on_ack)
    print(orjson.dumps({"ready": True}).decode(), flush=True)
    while line := await stdin.readline():
        message = orjson.loads(line)
        if message.get("go"):
            feed.next, feed.written = [0] * len(fds), 0
            for table in range(len(fds)):
                feed.write_next(table)
            print(orjson.dumps({"going": True}).decode(), flush=True)
        elif message.get("report"):
            print(orjson.dumps({"written": feed.written}).decode(), flush=True)


def _proc_cpu_s(pid: int) -> float:
    """CPU seconds (user and system) a process has used, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _drop(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.read(fd, 65536)


# -- the two sides -----------------------------------------------------------------------------------------


async def ours_live(
    sizes: dict[str, Any], data: Path, ptys: list[PtyPair], devices: Devices
) -> dict[str, Any]:
    """Ours on the live shape: the real sessions (through pyserial) into the real hub path."""
    rig = HubRig(sizes, data)
    counter = Counter(sizes["frames"], len(ptys))

    readers: list[PushReader] = []

    def opener_for(path: str):
        inner = serial_opener(path)

        async def open_():
            reader, writer = await inner()
            assert isinstance(reader, PushReader)  # each read is handed to the session as it comes
            readers.append(reader)
            return reader, writer

        return open_

    sessions = [
        DeviceSession(
            pty.slave_path,
            opener_for(pty.slave_path),
            CountingSink(rig.ingest.sink_for(table), counter, functools.partial(devices.ack, i)),
            expected_device_id=f"tt-{i + 1}",
            backoff=Backoff(initial=60.0),
        )
        for i, (table, pty) in enumerate(zip(rig.venue.tables, ptys, strict=True))
    ]
    await rig.start()
    loop = asyncio.get_running_loop()
    tasks = [loop.create_task(s.run()) for s in sessions]
    async with asyncio.timeout(20):
        await counter.all_connected.wait()
    await rig.log.flush()  # the writer process is started (once in a hub's life), outside the clock
    await asyncio.sleep(0.1)  # the sessions' resync commands are sent; the devices drop them
    assert rig.log.writer is not None and rig.log.writer.pid is not None
    usage = Usage(devices, rig.log.writer.pid)
    reads_before = sum(r.reads for r in readers)  # the HELLOs
    await devices.go()
    async with asyncio.timeout(120):
        await counter.done.wait()
    await rig.log.flush()
    elapsed = usage.stop()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    written = (await devices.finished())["written"]
    counter.reads = sum(r.reads for r in readers) - reads_before
    commit_sizes = [n for n in rig.commit_sizes if n]
    result = await rig.stop()
    return {
        **result,
        "observations": counter.frames,
        "written": written,
        "reads": counter.reads,
        "per_s": counter.frames / elapsed,
        "seconds": elapsed,
        "cpu": usage.shares,
        "cpu_us_per_frame": usage.us_per(counter.frames),
        "rows_per_commit": sum(commit_sizes) / max(1, len(commit_sizes)),
    }


class Usage:
    """Wall time of a run, and the CPU share (of one core) of this process, the devices' and the log writer's."""

    def __init__(self, devices: Devices | None, writer_pid: int | None) -> None:
        self.devices = devices
        self.writer_pid = writer_pid
        self.started = time.perf_counter()
        self.cpu = self._cpu()
        self.shares: dict[str, float] = {}
        self.spent: dict[str, float] = {}

    def _cpu(self) -> tuple[float, float, float]:
        writer = _proc_cpu_s(self.writer_pid) if self.writer_pid is not None else 0.0
        return time.process_time(), self.devices.cpu_s() if self.devices else 0.0, writer

    def stop(self) -> float:
        elapsed = time.perf_counter() - self.started
        spent = [b - a for a, b in zip(self.cpu, self._cpu(), strict=True)]
        names = ("reader_process", "devices", "log_writer")
        self.spent = {
            name: s
            for name, s, kept in zip(
                names, spent, (True, bool(self.devices), bool(self.writer_pid)), strict=True
            )
            if kept
        }
        self.shares = {name: round(s / elapsed, 2) for name, s in self.spent.items()}
        return elapsed

    def us_per(self, frames: int) -> dict[str, float]:
        """CPU µs per frame of each process (/proc counts in clock ticks: 10 ms, so long runs only)."""
        return {name: round(s / max(1, frames) * 1e6, 1) for name, s in self.spent.items()}


class _BareReader:
    """os.read from the slave paths, frames cut at 0x00, one row each, committed by a thread (group commit)."""

    def __init__(self, paths: list[str], db: Path, devices: Devices, counter: Counter) -> None:
        self.paths = paths
        self.db = db
        self.devices = devices
        self.counter = counter
        self.fds: list[int] = []
        self.rest = [b""] * len(paths)
        self.queue: queue.SimpleQueue[tuple[int, int, float, bytes] | None] = queue.SimpleQueue()
        self.next_id = 1
        self.committed = 0
        self.commit_sizes: list[int] = []
        self.all_committed = asyncio.Event()
        self.thread = threading.Thread(target=self._commit_loop, name="bare-commits", daemon=True)

    def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        with sqlite3.connect(self.db) as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(
                "CREATE TABLE frames (id INTEGER PRIMARY KEY, tty INTEGER, at REAL, raw BLOB NOT NULL)"
            )
        conn.close()
        self.thread.start()
        for i, path in enumerate(self.paths):
            fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
            self.fds.append(fd)
            self.loop.add_reader(fd, self._read, i, fd)

    def _read(self, table: int, fd: int) -> None:
        try:
            data = os.read(fd, 4096)
        except BlockingIOError:
            return
        self.counter.reads += 1
        *frames, self.rest[table] = (self.rest[table] + data).split(b"\x00")
        now = time.time()
        taken = 0
        for frame in frames:
            if frame:
                self.queue.put((self.next_id, table, now, frame))
                self.next_id += 1
                taken += 1
        if taken:
            self.devices.ack(table, taken)
            self.counter.took(taken)

    def _commit_loop(self) -> None:
        conn = sqlite3.connect(self.db, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        stop = False
        while not stop:
            item = self.queue.get()
            batch = []
            while item is not None:
                batch.append(item)
                if len(batch) >= BATCH_MAX:
                    break
                try:
                    item = self.queue.get_nowait()
                except queue.Empty:
                    break
            stop = item is None
            if batch:
                conn.execute("BEGIN")
                conn.executemany("INSERT INTO frames VALUES (?, ?, ?, ?)", batch)
                conn.execute("COMMIT")
                self.loop.call_soon_threadsafe(self._committed, len(batch))
        conn.close()

    def _committed(self, n: int) -> None:
        self.committed += n
        self.commit_sizes.append(n)
        if self.committed >= self.counter.total:
            self.all_committed.set()

    def close(self) -> None:
        for fd in self.fds:
            self.loop.remove_reader(fd)
            os.close(fd)
        self.queue.put(None)
        self.thread.join(10)


async def bare_live(
    sizes: dict[str, Any], data: Path, ptys: list[PtyPair], devices: Devices
) -> dict[str, Any]:
    """The bare reader on the same ptys, the same frames and the same pacing."""
    counter = Counter(sizes["frames"])
    bare = _BareReader([p.slave_path for p in ptys], data / "bare.sqlite3", devices, counter)
    bare.start()
    try:
        usage = Usage(devices, None)
        await devices.go()
        async with asyncio.timeout(120):
            await bare.all_committed.wait()
        elapsed = usage.stop()
    finally:
        bare.close()
    written = (await devices.finished())["written"]
    with sqlite3.connect(data / "bare.sqlite3") as conn:
        stored = conn.execute("SELECT COUNT(*) FROM frames").fetchone()[0]
    conn.close()
    return {
        "observations": counter.frames,
        "written": written,
        "stored": stored,
        "reads": counter.reads,
        "per_s": counter.frames / elapsed,
        "seconds": elapsed,
        "cpu": usage.shares,
        "cpu_us_per_frame": usage.us_per(counter.frames),
        "commits": len(bare.commit_sizes),
        "rows_per_commit": sum(bare.commit_sizes) / max(1, len(bare.commit_sizes)),
    }


async def live_shape(sizes: dict[str, Any], data: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """Ours, then the bare reader, on the same ptys fed by the same devices' process: `live_rounds` matches on
    each of `tables` tables."""
    rounds, best_of = sizes["live_rounds"], sizes["best_of"]
    frames = sum(len(device_frames(i, rounds, best_of)) for i in range(sizes["tables"]))
    sizes = {**sizes, "rounds": rounds, "frames": frames}
    ptys = [open_pty_pair() for _ in range(sizes["tables"])]
    devices = Devices(ptys, sizes)
    try:
        await devices.start()
        (data / "live").mkdir()
        ours = await ours_live(sizes, data / "live", ptys, devices)
        bare = await bare_live(sizes, data, ptys, devices)
    finally:
        await devices.close()
        for p in ptys:
            p.close()
    return ours, bare


if __name__ == "__main__":
    asyncio.run(_device_main())
