"""Many table-tennis scoreboards in one process, each writing Boardcast Wire to its own pty master.

Run by the latency and scaling benchmarks as ``python -m benchmarks.ptydevices`` with the master fds
inherited (`benchmarks.ptyboards.DeviceProcess` starts it); line-JSON on stdin/stdout. stdin: ``{"fds": [...],
"device_ids": [...], "hellos": [hex], "boards": [[[g0, g1, p0, p1, hex frame], ...], ...], "rate": 1.0,
"seconds": s, "cpu": 1}``; it prints ``{"ready": true}``; stdin ``{"go": true}``: each board sends its HELLO,
then one display per rally at `rate` per table, spread over the second. Every STATE write is stamped with
the wall clock just before ``os.write``. At the end it prints ``{"writes": {device_id: [[g0, g1, p0, p1,
t]]}}``. Commands from the hub (resync) are read and dropped. The frames come encoded from the benchmark,
so this process imports nothing of the hub's and starts in a fraction of a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time

import orjson


def write_all(fd: int, data: bytes) -> None:
    """Write all of `data` to a non-blocking descriptor, waiting while the pty's buffer is full."""
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            time.sleep(0.0005)


async def main() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 26)  # the config carries every board's frames
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
    boards: list[list[list]] = config["boards"]  # per table: [g0, g1, p0, p1, frame as hex] per display
    frames = [[bytes.fromhex(row[4]) for row in board] for board in boards]
    hellos = [bytes.fromhex(h) for h in config["hellos"]]
    for fd in fds:
        os.set_blocking(fd, False)
        loop.add_reader(fd, _drop, fd)
    writes: dict[str, list[list[float]]] = {d: [] for d in ids}
    print(orjson.dumps({"ready": True}).decode(), flush=True)
    await reader.readline()
    n = len(fds)
    for i, fd in enumerate(fds):
        write_all(fd, b"\x00" + hellos[i])
    period = 1.0 / (n * rate)
    end = loop.time() + config["seconds"]
    next_at = loop.time()
    k = 0
    while next_at < end:
        table, step = k % n, k // n
        if step < len(frames[table]):
            writes[ids[table]].append([*boards[table][step][:4], time.time()])
            write_all(fds[table], frames[table][step])
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


if __name__ == "__main__":
    asyncio.run(main())
