"""edges: frames/s delivered to spectators by two spectator edges over Redis, against one process alone.

Same run, same load, same clients. Changes: table-tennis tables reporting through each table's real
`TableSink` (logged and committed before they are public, see `ChangeDriver`). Clients: `benchmarks.wsclient`
processes, each client on the `venue` topic (one frame per change, no batching), counting frames.

- one process: the hub (`HubRuntime` on its own thread) commits the changes and serves every client.
- two edges: the same hub publishes to a real `redis-server` (`BusPublisher`) and serves no client; two
  `boardcast edge` processes read the venue's stream and serve half of the clients each.

The demand (changes/s × clients) is set above what one process can send, so frames/s measures capacity.
Edges scale out only where they have CPUs of their own: on a two-CPU machine the hub, Redis, both edges and
the client processes share two CPUs, and the figure says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from benchmarks.common import (
    HOST,
    ROOT,
    ChangeDriver,
    ClientFleet,
    Result,
    ThreadedHub,
    pin_server,
    raise_nofile,
    say,
    scratch,
    tt_venue,
)
from benchmarks.common import sizes as pick_sizes
from hub.bus import BusPublisher
from hub.venue import Venue

NAME = "edges"
FULL = {"clients": 1000, "tables": 100, "rate": 2.0, "warmup_s": 2.0, "window_s": 8.0, "client_processes": 2}
SMOKE = {"clients": 20, "tables": 4, "rate": 2.0, "warmup_s": 0.5, "window_s": 1.0, "client_processes": 2}
TARGET = 1.6


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def venue_toml(venue: Venue) -> str:
    """The venue file of `tt_venue`, for the edges (they read the venue from a file, as in production)."""
    lines = [f'[venue]\nname = "{venue.name}"\n']
    lines += [f'[[tables]]\nid = "{t.id}"\nsport = "{t.sport}"\n' for t in venue.tables]
    lines += [
        f'[[matches]]\nid = "{m.id}"\ntable = "{m.table}"\nround = {m.round}\nbest_of = {m.best_of}\n'
        f'players = ["{m.players[0]}", "{m.players[1]}"]\n'
        for m in venue.matches
    ]
    return "\n".join(lines)


def _spawn(args: list[str], *, log: Path | None = None, cpus: set[int] | None = None) -> subprocess.Popen:
    """Start a process (an edge, Redis), pinned to `cpus` when given, its output to `log`."""
    out = log.open("w") if log is not None else subprocess.DEVNULL
    pin = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
    return subprocess.Popen(args, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, preexec_fn=pin)


def _wait_http(port: int, proc: subprocess.Popen, log: Path, within: float = 30.0) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"edge exited: {log.read_text()[-2000:]}")
        with contextlib.suppress(OSError):
            urllib.request.urlopen(f"http://{HOST}:{port}/api/health", timeout=1).read()
            return
        time.sleep(0.05)
    raise RuntimeError(f"edge did not serve within {within} s: {log.read_text()[-2000:]}")


async def _measure(ports: list[int], sizes: dict[str, Any], driver: ChangeDriver, label: str) -> dict:
    per_port = sizes["clients"] // len(ports)
    processes = max(1, sizes["client_processes"] // len(ports))
    fleets = [ClientFleet(p, [["venue"]] * per_port, "count", processes=processes) for p in ports]
    try:
        ready = failed = 0
        for fleet in fleets:
            r, f = await fleet.start(within=30)
            ready, failed = ready + r, failed + f
        say(f"{label}: {ready} clients connected, {failed} failed")
        started = time.time()
        t0 = started + sizes["warmup_s"]
        t1 = t0 + sizes["window_s"]
        driver.window = (started, t1 + 0.3)
        for fleet in fleets:
            await fleet.window(t0, t1)
        await asyncio.sleep(max(0.0, t1 - time.time()))
        cpu = os.times()
        results = [r for fleet in fleets for r in await fleet.results(within=30)]
        frames = sum(r["frames"] for r in results)
        return {
            "ready": ready,
            "failed": failed,
            "frames_per_s": frames / sizes["window_s"],
            "changes_per_s": driver.sent / max(1e-9, time.time() - started),
            "closed": sum(r["closed"] for r in results),
            "bench_cpu_s": cpu.user + cpu.system,
        }
    finally:
        for fleet in fleets:
            await fleet.close()


async def _one_process(sizes: dict[str, Any]) -> dict:
    with scratch(f"{NAME}-one") as data:
        driver = ChangeDriver(sizes["tables"], rate=sizes["rate"], seconds=60)
        hub = ThreadedHub(tt_venue(sizes["tables"]), data, jobs=(driver.job,))
        await hub.start()
        try:
            return await _measure([hub.port], sizes, driver, "one process")
        finally:
            await hub.stop(within=8.0)


async def _two_edges(sizes: dict[str, Any]) -> dict:
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError("redis-server is not installed (bash scripts/test.sh installs it)")
    with scratch(f"{NAME}-edges") as data:
        redis_port = _free_port()
        redis = _spawn(
            [binary, "--port", str(redis_port), "--bind", HOST, "--save", "", "--appendonly", "no"]
        )
        edges: list[subprocess.Popen] = []
        hub: ThreadedHub | None = None
        try:
            url = f"redis://{HOST}:{redis_port}/0"
            venue = tt_venue(sizes["tables"])
            venue_file = data / "venue.toml"
            venue_file.write_text(venue_toml(venue), encoding="utf-8")
            driver = ChangeDriver(sizes["tables"], rate=sizes["rate"], seconds=60)
            hub = ThreadedHub(venue, data / "hub", jobs=(driver.job,))
            runtime = hub.runtime
            runtime.bus = BusPublisher(url, venue, hub_url="http://hub/")
            runtime.bus.attach(runtime.hall)
            await hub.start()
            ports = [_free_port(), _free_port()]
            cpus = sorted(os.sched_getaffinity(0) | set(range(os.cpu_count() or 1)))
            for n, port in enumerate(ports):
                log = data / f"edge{n}.log"
                # with CPUs to spare, each edge gets one of its own; else it inherits the hub's
                pin = {cpus[2 + n]} if len(cpus) >= 4 else None
                args = [sys.executable, "-m", "hub", "edge", "--venue", str(venue_file), "--bus", url]
                edges.append(_spawn([*args, "--host", HOST, "--port", str(port)], log=log, cpus=pin))
            for n, (port, proc) in enumerate(zip(ports, edges, strict=True)):
                await asyncio.to_thread(_wait_http, port, proc, data / f"edge{n}.log")
            result = await _measure(ports, sizes, driver, "two edges")
            result["bus_backlog"] = runtime.bus.backlog
            result["bus_written"] = runtime.bus.written
            return result
        finally:
            for proc in edges:
                proc.terminate()
            for proc in edges:
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
            if hub is not None:
                await hub.stop(within=8.0)
            redis.terminate()
            redis.wait(timeout=10)


async def run(smoke: bool) -> Result:
    sizes = pick_sizes(FULL, SMOKE, smoke)
    cpus = sorted(os.sched_getaffinity(0))
    notes = [pin_server()]
    if len(cpus) >= 4:
        notes.append(f"edges pinned to CPUs {cpus[2]} and {cpus[3]}; Redis shares the hub's CPU")
    else:
        notes.append(
            f"{len(cpus)} CPUs: the edges and Redis share the hub's CPU, so both setups have the same CPU "
            "budget and the edges cannot scale out here (they need a CPU each: ≥ 4 CPUs)"
        )
    raised = raise_nofile(sizes["clients"] + 1024)
    if raised:
        notes.append(raised)
    one = await _one_process(sizes)
    two = await _two_edges(sizes)
    ratio = two["frames_per_s"] / one["frames_per_s"] if one["frames_per_s"] else 0.0
    demand = sizes["tables"] * sizes["rate"] * sizes["clients"]
    return Result(
        name=NAME,
        unit="frames/s",
        ours=two["frames_per_s"],
        baseline=one["frames_per_s"],
        target=f"≥ {TARGET}× one process",
        passed=ratio >= TARGET,
        sizes=sizes,
        details={
            "frames_demanded_per_s": round(demand),
            "one_process_clients": one["ready"],
            "two_edges_clients": two["ready"],
            "one_process_changes_per_s": round(one["changes_per_s"], 1),
            "two_edges_changes_per_s": round(two["changes_per_s"], 1),
            "closed": one["closed"] + two["closed"],
            "bus_written": two["bus_written"],
            "bus_backlog_at_end": two["bus_backlog"],
        },
        notes=notes,
    )
