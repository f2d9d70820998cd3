"""The benchmark's side of `benchmarks.ptydevices`: start the devices process, and tie the hub's logged
versions to the devices' stamped writes (the latency and scaling benchmarks use both)."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from pathlib import Path
from typing import Any

import orjson

from benchmarks.common import ROOT, client_cpu, tt_rallies
from boardcast_sim.pty import PtyPair
from devices.observations import DeviceFamily, DeviceHello
from devices.wire.messages import encode_report
from hub.log.eventlog import unpack

SEED = 11  # board i plays the legal match `tt_rallies(SEED + i)`


def boards(device_ids: list[str], rate: float, seconds: float) -> tuple[list[str], list[list[list]]]:
    """Each board's HELLO and displays, encoded here (the devices process imports nothing of the hub's): as
    hex, and each display as [g0, g1, p0, p1, frame] so the devices process can stamp what it wrote."""
    steps = int(rate * seconds) + 2
    hellos = [
        encode_report(DeviceHello(d, DeviceFamily.TT_SCOREBOARD.value, "bench", "bench-1", 1, 1, ("ack",)), 0)
        for d in device_ids
    ]
    displays = [
        [
            [*state.games, *state.points, encode_report(state, seq + 1).hex()]
            for seq, state in enumerate(tt_rallies(SEED + i)[:steps])
        ]
        for i in range(len(device_ids))
    ]
    return [h.hex() for h in hellos], displays


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
        hellos, displays = boards(device_ids, rate, seconds)
        config = {
            "fds": self.fds,
            "device_ids": device_ids,
            "hellos": hellos,
            "boards": displays,
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
    rows = device_reports(log_path, "body")
    for match_id, offset, body in rows:
        report = unpack(body)["report"]
        table = match_id.split("-")[1]
        t = by_key.get((table, *report["games"], *report["points"]))
        if t is None:
            unmatched += 1
            continue
        out.setdefault(match_id, {})[str(offset)] = t
    return out, unmatched


def device_reports(log_path: Path | str, column: str) -> list[tuple[str, int, Any]]:
    """(match, offset, `column`) of every device report the hub logged for a match: `body` or `at`."""
    assert column in ("body", "at"), column
    conn = sqlite3.connect(log_path)
    try:
        return conn.execute(
            f'SELECT match_id, "offset", {column} FROM events'
            " WHERE kind = 'device.report' AND match_id IS NOT NULL"
        ).fetchall()
    finally:
        conn.close()
