"""A hub in its own process, and reading it from outside: its CPU time, memory and sockets.

`python -m benchmarks.hubprocess` serves a venue of table-tennis tables wired to the pty slave paths it is
given (a real `HubRuntime`: sessions, codec, ingest, rules, the log and its writer process, fan-out) on the
default asyncio loop as `boardcast serve` runs it, pinned to the CPU it is given, until told to stop; so its
CPU time and RSS are its own. Line-JSON on stdin: the config, then any number of ``{"window": [t0, t1]}``,
then ``{"stop": true}``; replies on stdout start with `MARK`. Inside it the benchmark keeps two small
probes: a 10 ms timer whose lateness is the loop's stalls (``"probe": false`` in the config goes without), and a `gc.callbacks` entry timing collections
(CPU time); both are reported for the last window when it stops. `BENCH_HUB_PROFILE=FILE` writes a
cProfile of the hub process.

From outside (`HubProcess`, the functions below): CPU time from /proc/PID/task/TID/schedstat (ns), how long
the loop's thread waited for a CPU, VmRSS, and the kernel's memory for the hub's side of its connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import os
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import orjson

from benchmarks.common import ROOT, RunningHub, client_cpu, device_frames, server_cpu, tt_venue

SLABS = ("TCP", "sock_inode_cache", "filp", "dentry", "eventpoll_epi")  # what one accepted socket holds
SOCKET = re.compile(  # one `ss -tmnH` entry: Recv-Q, Send-Q, local port and the skmem buffers
    r"(\d+)\s+(\d+)\s+\S+:(\d+)\s+\S+\s+skmem:\(r(\d+),rb\d+,t\d+,tb\d+,f(\d+),w(\d+),o(\d+)"
)
MARK = "HUBPROCESS "  # the hub process's reply lines start with it

# -- the hub in its own process ---------------------------------------------------------------------------


async def _hub_main() -> None:
    """`python -m benchmarks.hubprocess`: serve a venue of pty tables until told to stop (line-JSON)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    line = await reader.readline()
    if not line:  # spawned ahead and not needed
        return
    config = orjson.loads(line)
    if config.get("cpu") is not None:  # before the log's writer process starts: it inherits the CPU
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {config["cpu"]})
    venue = tt_venue(config["tables"], devices=config["devices"])
    hub = RunningHub(venue, Path(config["data"]), bus_url=config.get("bus"))  # `serve --bus` with a URL
    await hub.start()
    highest_fd = max(int(name) for name in os.listdir("/proc/self/fd"))
    stamped: list[tuple[float, float, float]] = []  # (wall time, lateness, own lateness)
    # the probe wakes the loop 100 times a second: a benchmark timing the hub's own CPU goes without it
    watching = asyncio.create_task(_loop_lag(stamped) if config.get("probe", True) else asyncio.sleep(0))
    collections: list[tuple[float, float, int]] = []  # (wall time, CPU seconds, generation)
    gc.callbacks.append(functools.partial(_timed_collection, collections, [0.0]))
    _reply({"port": hub.port, "highest_fd": highest_fd})
    window = (0.0, float("inf"))
    while (line := await reader.readline()) and "window" in (command := orjson.loads(line)):
        window = tuple(command["window"])  # "stop", or the benchmark gone, ends the loop
    watching.cancel()
    assert hub.ctx is not None
    inside = [(lag, own) for at, lag, own in stamped if window[0] <= at < window[1]]
    lags = sorted(lag for lag, _ in inside)
    own_lags = sorted(own for _, own in inside)
    pauses = [(took, gen) for at, took, gen in collections if window[0] <= at < window[1]]
    stats = {
        "closed_stuck": hub.ctx.closed_stuck,
        "frames_ok": device_frames(hub.runtime),
        "loop_lag_p99_ms": _p99_ms(lags),
        "loop_lag_max_ms": round(lags[-1] * 1000, 1) if lags else None,
        "loop_own_lag_p99_ms": _p99_ms(own_lags),
        "loop_own_lag_max_ms": round(own_lags[-1] * 1000, 1) if own_lags else None,
        "gc_in_window": len(pauses),
        "gc_in_window_ms": round(sum(took for took, _ in pauses) * 1000, 1),
        "gc_longest_in_window_ms": round(max((took for took, _ in pauses), default=0.0) * 1000, 1),
        "gc_longest_pause_ms": round(hub.runtime.heap.longest_pause_ms, 1),
    }
    await hub.stop()  # the log commits what it holds as the hub stops
    _reply(stats)


async def _loop_lag(stamped: list[tuple[float, float, float]], every: float = 0.01) -> None:
    """How late the hub's loop wakes a 10 ms timer: its stalls, which every delivery waits behind. Each tick
    also notes the loop thread's own CPU time over the wait less the wait (none if less): how late the
    loop's own work alone would have made it on a CPU of its own. The two differ by the time the thread
    waited for a CPU (on a shared machine, other processes' work)."""
    loop = asyncio.get_running_loop()
    while True:
        due = loop.time() + every
        cpu = time.thread_time()
        await asyncio.sleep(every)
        own = max(0.0, time.thread_time() - cpu - every)
        stamped.append((time.time(), loop.time() - due, own))


def _p99_ms(sorted_s: list[float]) -> float | None:
    return round(sorted_s[int(0.99 * (len(sorted_s) - 1))] * 1000, 1) if sorted_s else None


def _timed_collection(
    out: list[tuple[float, float, int]], started: list[float], phase: str, info: dict
) -> None:
    """A `gc.callbacks` entry: each collection's wall time, CPU time and generation."""
    if phase == "start":
        started[0] = time.thread_time()
    else:
        out.append((time.time(), time.thread_time() - started[0], info["generation"]))


def _reply(message: dict[str, Any]) -> None:
    print(MARK + orjson.dumps(message).decode(), flush=True)


class HubProcess:
    """The benchmark's handle on the hub process: start, its pid tree's CPU and RSS, stop."""

    def __init__(self) -> None:
        self.proc: asyncio.subprocess.Process | None = None
        self.port = 0
        self.highest_fd = 0
        self.serving = False

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    async def spawn(self) -> None:
        """Start the process (it imports the hub, then waits for its venue): a benchmark may do this while
        it finishes the point before, so the next starts a second sooner."""
        if self.proc is None:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "benchmarks.hubprocess",
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                cwd=ROOT,
            )

    async def start(
        self, tables: int, devices: list[str], data: Path, *, bus: str | None = None, probe: bool = True
    ) -> None:
        """Serve `tables` tables on the pty slave paths `devices`, the log in `data`, publishing to the Redis
        at `bus` when given (as `boardcast serve --bus`), with or without the loop-lag `probe`; return once it
        serves."""
        await self.spawn()
        self.serving = True
        config = {"tables": tables, "devices": devices, "data": str(data), "cpu": hub_cpu(), "bus": bus}
        config["probe"] = probe
        await self._send(config)
        started = await self._reply(30)
        self.port, self.highest_fd = started["port"], started["highest_fd"]

    async def window(self, t0: float, t1: float) -> None:
        """The measuring window, for the hub's own loop-lag figures."""
        await self._send({"window": [t0, t1]})

    async def stop(self) -> dict[str, Any]:
        """Stop the hub; its last counters (closed_stuck, frames_ok), or {} if it had to be killed."""
        if self.proc is None or self.proc.returncode is not None:
            return {}
        if not self.serving:  # spawned, never given a venue: it exits when its stdin closes
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            await self.proc.wait()
            return {}
        try:
            await self._send({"stop": True})
            stats = await self._reply(30)
            async with asyncio.timeout(10):
                await self.proc.wait()
            return stats
        except (TimeoutError, RuntimeError, ConnectionError):
            self.proc.kill()
            await self.proc.wait()
            return {}

    async def _send(self, message: dict[str, Any]) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(orjson.dumps(message) + b"\n")
        await self.proc.stdin.drain()

    async def _reply(self, within: float) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdout is not None
        async with asyncio.timeout(within):
            while True:
                line = (await self.proc.stdout.readline()).decode()
                if not line:
                    raise RuntimeError(f"the hub process exited (code {await self.proc.wait()})")
                if line.startswith(MARK):
                    return orjson.loads(line[len(MARK) :])  # type: ignore[no-any-return]


def hub_cpu() -> int | None:
    """The CPU the hub runs on when the machine has a second one for the clients and devices."""
    return server_cpu() if client_cpu() is not None else None


# -- reading the hub from outside: /proc and ss -------------------------------------------------------------


def _tree(pid: int) -> list[int]:
    """pid and its descendants (the hub and its log writer process)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        with contextlib.suppress(OSError):
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo += [int(c) for c in f.read().split()]
    return out


def cpu_seconds(pid: int) -> dict[int, tuple[float, float]]:
    """Each process of pid's tree: (seconds on a CPU, seconds runnable but waiting for one), summed over its
    threads from /proc/PID/task/TID/schedstat (nanoseconds; /proc/PID/stat counts 10 ms ticks, too coarse
    for a short window). The wait shows a hub starved by other work on its CPU."""
    out = {}
    for p in _tree(pid):
        ran = waited = 0
        with contextlib.suppress(OSError):
            for task in os.listdir(f"/proc/{p}/task"):
                with contextlib.suppress(OSError), open(f"/proc/{p}/task/{task}/schedstat") as f:
                    fields = f.read().split()
                ran += int(fields[0])
                waited += int(fields[1])
            out[p] = (ran / 1e9, waited / 1e9)
    return out


def loop_wait_s(pid: int) -> float:
    """Seconds the process's main thread (the hub's event loop) has been runnable but waiting for a CPU."""
    try:
        with open(f"/proc/{pid}/task/{pid}/schedstat") as f:
            return int(f.read().split()[1]) / 1e9
    except OSError:
        return 0.0


def rss_kib_of(pid: int) -> int:
    """VmRSS of one process, KiB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def socket_struct_bytes() -> tuple[int, str]:
    """The kernel objects one accepted TCP socket holds (bytes), and where the figure came from: /proc/slabinfo
    (root only), else each cache's `slab_size` under /sys/kernel/slab (anyone); neither is an error, since a
    figure without them would understate the kernel's share."""
    sizes: dict[str, int] = {}
    with contextlib.suppress(OSError), open("/proc/slabinfo") as f:
        for line in f:
            parts = line.split()
            if parts and parts[0] in SLABS:
                sizes[parts[0]] = int(parts[3])
    for name in SLABS:
        if name not in sizes:
            with contextlib.suppress(OSError, ValueError):
                sizes[name] = int(Path(f"/sys/kernel/slab/{name}/slab_size").read_text())
    missing = [name for name in SLABS if name not in sizes]
    if missing:
        raise RuntimeError(
            f"kernel object sizes unreadable ({', '.join(missing)}): neither /proc/slabinfo nor "
            "/sys/kernel/slab/NAME/slab_size; the kernel's share per connection cannot be counted"
        )
    return sum(sizes.values()), "slab objects " + ", ".join(f"{k} {v} B" for k, v in sizes.items())


async def socket_buffers(port: int) -> dict[str, int]:
    """The loopback connections to `port`, from `ss -tmn`: the hub's side (local port = `port`: sockets and
    bytes of buffers) and, to tell a hub that is late from clients that are, the bytes the clients' sockets
    hold unread."""
    if shutil.which("ss") is None:
        raise RuntimeError(
            "`ss` not found: install iproute2 (Debian package `iproute2`) to count socket buffers"
        )
    proc = await asyncio.create_subprocess_exec(
        "ss",
        "-tmnH",
        "state",
        "established",
        f"( sport = :{port} or dport = :{port} )",
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await proc.communicate()
    got = {"sockets": 0, "bytes": 0, "unsent": 0, "clients_unread": 0}
    for m in SOCKET.finditer(out.decode()):
        recv_q, send_q, local, r, f, w, o = map(int, m.groups())
        if local == port:
            got["sockets"] += 1
            got["bytes"] += r + f + w + o
            got["unsent"] += send_q
        else:
            got["clients_unread"] += recv_q
    return got


def main() -> None:
    """Serve until told to stop; with `BENCH_HUB_PROFILE=FILE`, under cProfile."""
    profile_to = os.environ.get("BENCH_HUB_PROFILE")
    if not profile_to:
        asyncio.run(_hub_main())
        return
    import cProfile

    profiler = cProfile.Profile()
    profiler.runcall(asyncio.run, _hub_main())
    profiler.dump_stats(profile_to)


if __name__ == "__main__":
    main()
