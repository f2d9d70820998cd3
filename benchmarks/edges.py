"""edges: what spectator edges over Redis cost, per unit of CPU, so the figures hold on any number of cores.

One hall runs as it does in service: scoreboards on real ptys (`benchmarks.ptydevices`), a hall hub in its
own process publishing to a real `redis-server` (append-only file, `everysec`), and `boardcast edge`
processes reading the venue's stream. Every figure is CPU time read from outside (the hub's and the edges'
from /proc, Redis's from its `INFO cpu`) divided by the work done in the same window (changes the hub added
to the stream, messages the spectators counted), so it does not depend on how many cores the machine has.

1. Readers. With 0, 1, 2, 4 and 8 edges reading the stream (and 0 again at the end, to see drift), each
   over its own window: the hub's CPU per change (the hub publishes once; Redis serves the readers), Redis's
   CPU per change (fitted as a + b × edges: b is the cost of one more reader) and each edge's CPU per
   change with no spectators.
2. Spectators. The same clients (`benchmarks.wsclient`, every one following the whole hall on the wall's
   `venue` topic, one message per change, each checked: versions only go up, none skipped) first all on one
   edge, then split between two. Edge CPU per delivered message at 1 and at 2; the scale-out efficiency is
   the first over the second (1.0: two edges cost no more per message than one).
3. The capacity model (`benchmarks.capacity`) from these costs, checked against a measured point: the two
   edges' CPU predicted from the readers' cost per change and the one-edge point's cost per message.

The hub runs on its own CPU when there is a second for everything else (devices, Redis, edges, clients), so
the edges' work does not land on the hub's core and colour its figure.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import capacity
from benchmarks.busnodes import EdgeProcess, RedisProcess, venue_toml
from benchmarks.common import ClientFleet, Result, client_cpus, raise_nofile, say, scratch, tt_venue
from benchmarks.common import sizes as pick_sizes
from benchmarks.hubprocess import HubProcess, cpu_seconds, hub_cpu
from benchmarks.ptyboards import DeviceProcess
from devices.simulators.pty import PtyPair, open_pty_pair
from hub.bus import Keys

NAME = "edges"
FULL = {
    "tables": 200,
    "rate": 0.5,  # changes a second per table: 100 a second in all
    "edge_points": [0, 1, 2, 4, 8, 0],
    "point_s": 5.0,
    "settle_s": 1.0,
    "clients": 1000,
    "client_processes": 2,
    "warmup_s": 2.0,
    "window_s": 8.0,
}
SMOKE = {
    "tables": 10,
    "rate": 1.0,
    "edge_points": [0, 1, 2, 0],
    "point_s": 1.0,
    "settle_s": 0.5,
    "clients": 20,
    "client_processes": 2,
    "warmup_s": 0.5,
    "window_s": 1.5,
}
HUB_WITHIN = 0.10  # the hub's CPU per change with 8 edges, against none
EFFICIENCY = 0.9
REFERENCE_HALLS = (  # printed with the result: what a hall of this size needs
    capacity.Hall(tables=200, changes_per_table_s=0.5, spectators=10_000),
    capacity.Hall(tables=200, changes_per_table_s=0.5, spectators=50_000, share=1 / 200),
)


@dataclass
class RunningHall:
    """A hall in service: Redis, the devices, the hub publishing to Redis, and the venue file for edges."""

    data: Path
    redis: RedisProcess
    hub: HubProcess
    devices: DeviceProcess
    stream: str
    venue_file: Path
    others: set[int] | None  # the CPUs of everything but the hub, when the hub has one of its own

    def edge(self, n: int) -> EdgeProcess:
        """Start one more edge."""
        return EdgeProcess(self.venue_file, self.redis.url, self.data / f"edge{n}.log", cpus=self.others)


@contextlib.asynccontextmanager
async def running_hall(sizes: dict[str, Any], seconds: float) -> AsyncIterator[RunningHall]:
    """Start a hall whose boards write for `seconds`; stop everything on the way out."""
    tables = sizes["tables"]
    venue = tt_venue(tables)
    others = set(client_cpus()) if hub_cpu() is not None else None
    ptys: list[PtyPair] = [open_pty_pair() for _ in range(tables)]
    devices, hub = DeviceProcess(), HubProcess()
    with scratch(NAME) as data:
        redis = RedisProcess(data, cpus=others)
        try:
            venue_file = data / "venue.toml"
            venue_file.write_text(venue_toml(venue), encoding="utf-8")
            await devices.spawn(ptys)
            device_ids = [f"tt-{i + 1}" for i in range(tables)]
            await asyncio.gather(
                devices.configure(device_ids, sizes["rate"], seconds),
                hub.start(tables, [p.slave_path for p in ptys], data / "hub", bus=redis.url),
            )
            await devices.go()
            yield RunningHall(data, redis, hub, devices, Keys.of(venue).stream, venue_file, others)
        finally:
            await devices.close()
            await hub.stop()
            redis.stop()
            for p in ptys:
                p.close()


@dataclass(frozen=True)
class Reading:
    """CPU seconds so far and the stream's entries, at one moment."""

    at: float
    hub_s: float
    writer_s: float
    redis_s: float
    entries: int
    edges_s: tuple[float, ...]


def read(hall: RunningHall, edges: list[EdgeProcess]) -> Reading:
    """Everyone's CPU time now."""
    tree = cpu_seconds(hall.hub.pid)
    hub_s = tree.pop(hall.hub.pid)[0]
    return Reading(
        at=time.monotonic(),
        hub_s=hub_s,
        writer_s=sum(ran for ran, _ in tree.values()),
        redis_s=hall.redis.cpu_s(),
        entries=hall.redis.entries_added(hall.stream),
        edges_s=tuple(e.cpu_s() for e in edges),
    )


async def _add_edges(hall: RunningHall, edges: list[EdgeProcess], wanted: int) -> None:
    new = [hall.edge(len(edges) + i) for i in range(wanted - len(edges))]
    edges += new
    await asyncio.gather(*(e.serving() for e in new))


def _stop(edges: list[EdgeProcess]) -> None:
    for e in edges:
        e.stop()
    edges.clear()


async def readers(hall: RunningHall, sizes: dict[str, Any]) -> list[dict[str, Any]]:
    """Part 1: one window per number of edges reading; the hub's, Redis's and the edges' CPU per change."""
    points = []
    edges: list[EdgeProcess] = []
    try:
        for wanted in sizes["edge_points"]:
            if wanted < len(edges):
                _stop(edges)
            await _add_edges(hall, edges, wanted)
            await asyncio.sleep(sizes["settle_s"])
            r0 = read(hall, edges)
            await asyncio.sleep(sizes["point_s"])
            r1 = read(hall, edges)
            changes = r1.entries - r0.entries
            if changes <= 0:
                raise RuntimeError(f"no change reached the stream with {wanted} edges")
            applied = [e.health()["bus"]["applied"] for e in edges]
            point = {
                "edges": wanted,
                "changes": changes,
                "hub_us_per_change": (r1.hub_s - r0.hub_s) / changes * 1e6,
                "writer_us_per_change": (r1.writer_s - r0.writer_s) / changes * 1e6,
                "redis_us_per_change": (r1.redis_s - r0.redis_s) / changes * 1e6,
                "edge_us_per_change": (
                    statistics.mean(b - a for a, b in zip(r0.edges_s, r1.edges_s, strict=True)) / changes * 1e6
                    if edges
                    else None
                ),
                "edges_applied_min": min(applied) if applied else None,
            }
            say(f"{NAME}: {wanted} edges: {_short(point)}")
            points.append(point)
    finally:
        _stop(edges)
    return points


def _short(point: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}" for k, v in point.items())


async def spectators(hall: RunningHall, edges: list[EdgeProcess], sizes: dict[str, Any]) -> dict[str, Any]:
    """Part 2, one side: the clients split evenly over `edges`; edge CPU per message they counted."""
    share = sizes["clients"] // len(edges)
    processes = max(1, sizes["client_processes"] // len(edges))
    fleets = [ClientFleet(e.port, [["venue"]] * share, "check", processes=processes) for e in edges]
    try:
        ready = failed = 0
        for fleet in fleets:
            r, f = await fleet.start(within=60)
            ready, failed = ready + r, failed + f
        say(f"{NAME}: {ready} clients on {len(edges)} edge(s), {failed} failed")
        t0 = time.time() + sizes["warmup_s"]
        t1 = t0 + sizes["window_s"]
        for fleet in fleets:
            await fleet.window(t0, t1)
        await asyncio.sleep(max(0.0, t0 - time.time()))
        r0 = read(hall, edges)
        await asyncio.sleep(max(0.0, t1 - time.time()))
        r1 = read(hall, edges)
        results = [r for fleet in fleets for r in await fleet.results(within=60)]
    finally:
        for fleet in fleets:
            await fleet.close()
    edge_s = sum(r1.edges_s) - sum(r0.edges_s)
    messages = sum(r["frames"] for r in results)
    changes = r1.entries - r0.entries
    return {
        "edges": len(edges),
        "clients": ready,
        "failed": failed,
        "changes": changes,
        "messages": messages,
        "edge_cpu_s": edge_s,
        "edge_us_per_message": edge_s / messages * 1e6 if messages else float("inf"),
        "delivered_share": sum(r["checked"] for r in results) / max(1, changes * ready),
        "gaps": sum(r["gaps"] for r in results),
        "backwards": sum(r["backwards"] for r in results),
        "closed": sum(r["closed"] for r in results),
        "client_cpu_s": sum(r["cpu_s"] for r in results),
    }


def fit_line(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least squares y = a + b x: (a, b)."""
    mx, my = statistics.mean(xs), statistics.mean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx if sxx else 0.0
    return my - b * mx, b


def model(points: list[dict[str, Any]], one: dict[str, Any], two: dict[str, Any]) -> dict[str, Any]:
    """The model's costs from the measurements, and its prediction of the two-edge point against it."""
    base = [p["hub_us_per_change"] for p in points if p["edges"] == 0]
    hub = statistics.mean(base)
    redis_a, redis_b = fit_line([p["edges"] for p in points], [p["redis_us_per_change"] for p in points])
    read_points = [p for p in points if p["edges"]]
    edge_change = sum(p["edge_us_per_change"] * p["edges"] * p["changes"] for p in read_points) / sum(
        p["edges"] * p["changes"] for p in read_points
    )
    # the one-edge point's CPU less its share for changes is what its messages cost
    message = (one["edge_cpu_s"] * 1e6 - one["changes"] * edge_change) / max(1, one["messages"])
    costs = capacity.Costs(hub, redis_a, redis_b, edge_change, message)
    predicted = capacity.edge_cpu_s(costs, 2, two["changes"], two["messages"])
    return {
        "costs": costs,
        "predicted_two_edges_cpu_s": predicted,
        "model_error": predicted / two["edge_cpu_s"] - 1 if two["edge_cpu_s"] else float("inf"),
    }


async def run(smoke: bool) -> Result:
    sizes = pick_sizes(FULL, SMOKE, smoke)
    notes = [raise_nofile(sizes["clients"] + 2048) or "open files enough"]
    if hub_cpu() is not None:
        notes.append(f"hub on CPU {hub_cpu()}; devices, Redis, edges and clients on CPU(s) {client_cpus()}")
    seconds = 150.0 if not smoke else 40.0  # boards write that long at most (a match ends sooner or later)
    async with running_hall(sizes, seconds) as hall:
        say(f"{NAME}: hub {hall.hub.pid} publishing to {hall.redis.url}")
        points = await readers(hall, sizes)
        edges = [hall.edge(100), hall.edge(101)]
        try:
            await asyncio.gather(*(e.serving() for e in edges))
            one = await spectators(hall, edges[:1], sizes)
            two = await spectators(hall, edges, sizes)
        finally:
            _stop(edges)
    return _result(sizes, points, one, two, notes)


def _result(
    sizes: dict[str, Any],
    points: list[dict[str, Any]],
    one: dict[str, Any],
    two: dict[str, Any],
    notes: list[str],
) -> Result:
    fitted = model(points, one, two)
    costs: capacity.Costs = fitted["costs"]
    most = max(p["edges"] for p in points)
    hub_most = statistics.mean(p["hub_us_per_change"] for p in points if p["edges"] == most)
    hub_ratio = hub_most / costs.hub_us_per_change
    efficiency = one["edge_us_per_message"] / two["edge_us_per_message"]
    sound = all(side[k] == 0 for side in (one, two) for k in ("gaps", "backwards", "closed", "failed"))
    notes += [capacity.describe(h, capacity.plan(costs, h)) for h in REFERENCE_HALLS]
    return Result(
        name=NAME,
        unit="edge µs CPU/msg",
        ours=two["edge_us_per_message"],
        baseline=one["edge_us_per_message"],
        target=f"efficiency ≥ {EFFICIENCY}; hub CPU/change at {most} edges within {HUB_WITHIN:.0%} of 0",
        passed=efficiency >= EFFICIENCY and abs(hub_ratio - 1) <= HUB_WITHIN and sound,
        sizes=sizes,
        details={
            "hub_cpu_ratio_8_edges": round(hub_ratio, 3),
            "hub_cpu_us_per_change": round(costs.hub_us_per_change, 1),
            "redis_cpu_us_per_change": round(costs.redis_us_per_change, 2),
            "redis_cpu_us_per_change_per_edge": round(costs.redis_us_per_change_per_edge, 2),
            "edge_cpu_us_per_change": round(costs.edge_us_per_change, 1),
            "edge_cpu_us_per_message": {
                "1_edge": round(one["edge_us_per_message"], 3),
                "2_edges": round(two["edge_us_per_message"], 3),
                "model_marginal": round(costs.edge_us_per_message, 3),
            },
            "scale_out_efficiency": round(efficiency, 3),
            "model_check": {
                "two_edges_cpu_s_measured": round(two["edge_cpu_s"], 3),
                "two_edges_cpu_s_predicted": round(fitted["predicted_two_edges_cpu_s"], 3),
                "error": round(fitted["model_error"], 3),
            },
            "readers": [{k: _rounded(v) for k, v in p.items()} for p in points],
            "spectators": [{k: _rounded(v) for k, v in side.items()} for side in (one, two)],
            "cpus": len(os.sched_getaffinity(0)),
        },
        notes=notes,
    )


def _rounded(value: Any) -> Any:
    return round(value, 3) if isinstance(value, float) else value
