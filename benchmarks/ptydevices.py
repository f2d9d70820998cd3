"""Many table-tennis scoreboards in one process, each writing Boardcast Wire to its own pty master.

Run by the latency benchmark as ``python -m benchmarks.ptydevices`` with the master fds inherited; line-JSON
on stdin/stdout. stdin: ``{"fds": [...], "device_ids": [...], "rate": 1.0, "seconds": s, "cpu": 1}``;
it prints ``{"ready": true}``; stdin ``{"go": true}``: each board sends HELLO and its 0-0 display, then one
display per rally at `rate` per table, spread over the second. Every STATE write is stamped with the
wall clock just before ``os.write``. At the end it prints ``{"writes": {device_id: [[g0, g1, p0, p1, t]]}}``.
Commands from the hub (resync) are read and dropped. `DeviceProcess` is the benchmark's handle on it, and
`version_map` ties the hub's logged versions to these stamped writes (latency and scaling use both).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import orjson

from benchmarks.common import ROOT, client_cpu, tt_rallies
from devices.observations import DeviceFamily, DeviceHello
from devices.simulators.pty import PtyPair
from devices.wire.messages import encode_report
from hub.log.eventlog import unpack


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            time.sleep(0.0005)


async def main() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    line = await reader.readline()
    if not line:  # spawned ahead and not needed
        return
    config = orjson.loads(line)
    if config.get("cpu") is not None:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {config["cpu"]})
    fds: list[int] = config["fds"]
    ids: list[str] = config["device_ids"]
    rate: float = config["rate"]
    steps = int(rate * config["seconds"]) + 2
    boards = [tt_rallies(config.get("seed", 11) + i)[:steps] for i in range(len(fds))]
    frames = [[encode_report(s, seq + 1) for seq, s in enumerate(states)] for states in boards]
    hellos = [
        encode_report(DeviceHello(d, DeviceFamily.TT_SCOREBOARD.value, "bench", "bench-1", 1, 1, ("ack",)), 0)
        for d in ids
    ]
    for fd in fds:
        os.set_blocking(fd, False)
        loop.add_reader(fd, _drop, fd)
    writes: dict[str, list[list[float]]] = {d: [] for d in ids}
    print(orjson.dumps({"ready": True}).decode(), flush=True)
    await reader.readline()
    n = len(fds)
    for i, fd in enumerate(fds):
        _write(fd, b"\x00" + hellos[i])
    period = 1.0 / (n * rate)
    end = loop.time() + config["seconds"]
    next_at = loop.time()
    k = 0
    while next_at < end:
        table, step = k % n, k // n
        if step < len(frames[table]):
            state = boards[table][step]
            writes[ids[table]].append([*state.games, *state.points, time.time()])
            _write(fds[table], frames[table][step])
        k += 1
        next_at += period
        delay = next_at - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
    print(orjson.dumps({"writes": writes}).decode(), flush=True)
    with contextlib.suppress(Exception):
        async with asyncio.timeout(30):
            await reader.readline()


def _drop(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.read(fd, 65536)


# -- the benchmark's side: start the devices process, and tie the hub's versions to the devices' writes ----


class DeviceProcess:
    """The parent's handle on a ``benchmarks.ptydevices`` process holding every pty master.

    The device ends belong to the devices process (on a real venue they are across a cable); `spawn` closes
    them in the parent, which keeps only the slave ends (the pty stays alive while the hub reopens it).
    """

    def __init__(self) -> None:
        self.proc: asyncio.subprocess.Process | None = None
        self.fds: list[int] = []

    async def spawn(self, ptys: list[PtyPair]) -> None:
        """Start the process with the masters and close them here; it imports, then waits for `configure`
        (a benchmark may spawn it while it finishes the point before)."""
        self.fds = [p.master_fd for p in ptys]
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "benchmarks.ptydevices",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            cwd=ROOT,
            pass_fds=self.fds,
            limit=1 << 26,
        )
        for p in ptys:
            p.close_master()

    async def configure(self, device_ids: list[str], rate: float, seconds: float) -> None:
        """Say what each board is and how it writes; return once the process is ready to write."""
        config = {
            "fds": self.fds,
            "device_ids": device_ids,
            "rate": rate,
            "seconds": seconds,
            "cpu": client_cpu(),
        }
        await self._send(config)
        async with asyncio.timeout(20):
            await self._line()

    async def start(self, ptys: list[PtyPair], device_ids: list[str], rate: float, seconds: float) -> None:
        """`spawn` and `configure`."""
        await self.spawn(ptys)
        await self.configure(device_ids, rate, seconds)

    async def go(self) -> None:
        """Every board sends its HELLO and starts writing."""
        await self._send({"go": True})

    async def writes(self, within: float) -> dict[str, list[list[float]]]:
        """Each device's stamped writes, once it has written for its `seconds`."""
        async with asyncio.timeout(within):
            return orjson.loads(await self._line())["writes"]  # type: ignore[no-any-return]

    async def close(self) -> None:
        """Let the process exit; kill it if it does not."""
        proc = self.proc
        if proc is None or proc.returncode is not None:
            return
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            async with asyncio.timeout(5):
                await proc.wait()
        except TimeoutError:
            proc.kill()
            await proc.wait()

    async def _send(self, message: dict[str, Any]) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(orjson.dumps(message) + b"\n")
        await self.proc.stdin.drain()

    async def _line(self) -> bytes:
        assert self.proc is not None and self.proc.stdout is not None
        line = await self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the devices process exited (code {await self.proc.wait()})")
        return line


def version_map(
    log_path: Path, writes: dict[str, list[list[float]]]
) -> tuple[dict[str, dict[str, float]], int]:
    """match id → {version: device write time}, from the hub's log and the devices' write stamps; and how
    many logged reports no write explains. A report is tied to its write by table and displayed score,
    which never repeats within a match."""
    by_key = {}
    for device_id, rows in writes.items():
        table = "T" + device_id.split("-")[1]
        for g0, g1, p0, p1, t in rows:
            by_key[(table, int(g0), int(g1), int(p0), int(p1))] = t
    out: dict[str, dict[str, float]] = {}
    unmatched = 0
    conn = sqlite3.connect(log_path)
    try:
        rows = conn.execute(
            "SELECT match_id, \"offset\", body FROM events WHERE kind = 'device.report' AND match_id IS NOT NULL"
        ).fetchall()
    finally:
        conn.close()
    for match_id, offset, body in rows:
        report = unpack(body)["report"]
        table = match_id.split("-")[1]
        t = by_key.get((table, *report["games"], *report["points"]))
        if t is None:
            unmatched += 1
            continue
        out.setdefault(match_id, {})[str(offset)] = t
    return out, unmatched


if __name__ == "__main__":
    asyncio.run(main())
