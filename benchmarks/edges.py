"""edges: what spectator edges over Redis cost, per unit of CPU, so the figures hold on any number of cores.

One hall runs as it does in service: scoreboards on real ptys (`benchmarks.ptydevices`), a hall hub in its
own process publishing to a real `redis-server` (append-only file, `everysec`), and `boardcast edge`
processes reading the venue's stream. Every figure is CPU time read from outside (the hub's and the edges'
from /proc, Redis's from its `INFO cpu`) divided by the work done in the same window (changes the hub added
to the stream, messages the spectators counted), so it does not depend on how many cores the machine has.

1. Readers. Eight edges started, then paused (SIGSTOP) and resumed so that 0, 1, 2, 4 or 8 read the stream
   in each window, 0 and 8 alternating through the run so that a drift falls on both: the hub's CPU per
   change (it publishes once; Redis serves the readers), Redis's (fitted as a + b × edges: b is one more
   reader) and each edge's with no spectators.
2. Spectators. The same clients (`benchmarks.wsclient`, each following the whole hall on the wall's `venue`
   topic as the pages subscribe, one array per delivery, every change checked: versions only go up) all on
   one edge, then split between two. The edges share one core here, so each edge of the pair is timed alone
   in a window of its own while the other only reads. Edge CPU per delivered message at 1 and at 2; the
   scale-out efficiency is the first over the second (1.0: two edges cost no more per message than one).
   Three rounds, the edges taking turns.
3. The capacity model (`benchmarks.capacity`) from these costs, checked against the two-edge side, which it
   was not fitted on: its messages from the fan-out's window rule, and its edges' CPU.

The hub runs on a CPU of its own when there is a second for everything else (devices, Redis, edges, clients),
so the edges' work does not land on the hub's core; in part 2 the edges run on that CPU, the clients on the
other.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
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
from boardcast_sim.pty import PtyPair, open_pty_pair
from hub.bus.streams import Keys

NAME = "edges"
FULL = {
    "tables": 200,
    "rate": 0.1,  # changes a second per table (a rally every ten seconds): 20 a second in all
    "edge_points": [0, 8, 1, 0, 8, 2, 0, 8, 4, 0, 8, 0, 8],  # five pairs of 0 and 8, and 1, 2, 4 once
    "warm_s": 10.0,
    "point_s": 5.0,
    "settle_s": 2.0,
    # one edge gathers the wall for its longest window (160 ms, from 3,200 watchers), two edges for 100 ms:
    # two send more messages, each sooner; CPU per delivered change is reported beside CPU per message.
    # (8,000, where both would gather alike, takes over a minute a round to connect here: each client is
    # sent the whole hall first.)
    "clients": 4000,
    "client_processes": 2,
    "warmup_s": 2.0,
    "window_s": 6.0,
    "rounds": 3,
}
SMOKE = {
    "tables": 10,
    "rate": 1.0,
    "edge_points": [0, 2, 1, 0, 2],
    "warm_s": 1.0,
    "point_s": 1.0,
    "settle_s": 0.5,
    "clients": 20,
    "client_processes": 2,
    "warmup_s": 0.5,
    "window_s": 1.0,
    "rounds": 1,
}
HUB_WITHIN = 0.10  # the hub's CPU per change with 8 edges, against none
EFFICIENCY = 0.9
MODEL_WITHIN = 0.15  # the capacity model's prediction of the two-edge side's CPU
REFERENCE_HALLS = (  # printed with the result: what halls of this size need
    capacity.Hall(tables=200, changes_per_table_s=0.1, wall=10_000),
    capacity.Hall(tables=200, changes_per_table_s=0.1, wall=20_000, one_match=80_000),
)


@dataclass
class RunningHall:
    """A hall in service: Redis, the devices, the hub publishing to Redis, and the venue file for edges."""

    data: Path
    redis: RedisProcess
    hub: HubProcess
    stream: str
    venue_file: Path
    others: set[int] | None  # the CPUs of everything but the hub, when the hub has one of its own
    started: int = 0  # edges started so far (each its own log)

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
                hub.start(tables, [p.slave_path for p in ptys], data / "hub", bus=redis.url, probe=False),
            )
            await devices.go()
            yield RunningHall(data, redis, hub, Keys.of(venue).stream, venue_file, others)
        finally:
            await devices.close()
            await hub.stop()
            redis.stop()
            for p in ptys:
                p.close()


@dataclass(frozen=True)
class Reading:
    """CPU seconds so far and the stream's entries, at one moment."""

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
        hub_s=hub_s,
        writer_s=sum(ran for ran, _ in tree.values()),
        redis_s=hall.redis.cpu_s(),
        entries=hall.redis.entries_added(hall.stream),
        edges_s=tuple(e.cpu_s() for e in edges),
    )


async def _add_edges(hall: RunningHall, edges: list[EdgeProcess], wanted: int) -> None:
    new = [hall.edge(hall.started + i) for i in range(wanted - len(edges))]
    hall.started += len(new)
    edges += new
    await asyncio.gather(*(e.serving() for e in new))


def _stop(edges: list[EdgeProcess]) -> None:
    for e in edges:
        e.stop()
    edges.clear()


async def readers(hall: RunningHall, sizes: dict[str, Any]) -> list[dict[str, Any]]:
    """Part 1: one window per number of edges reading; the hub's, Redis's and the edges' CPU per change.

    Every edge is started first; an edge not in a window is paused (SIGSTOP): it holds its connection and
    reads nothing, so Redis serves only the edges that read. Zero and eight alternate through the run, so a
    drift in the hub's cost falls on both."""
    points = []
    edges: list[EdgeProcess] = []
    try:
        await _add_edges(hall, edges, max(sizes["edge_points"]))
        for edge in edges:
            edge.pause()
        await asyncio.sleep(sizes["warm_s"])  # the hub's first seconds aside: its cost per change settles
        for wanted in sizes["edge_points"]:
            reading = edges[:wanted]
            for edge in reading:
                edge.resume()
            for edge in edges[wanted:]:
                edge.pause()
            # a resumed edge catches up first; one paused longer than its Redis timeout reconnects first
            await asyncio.sleep(sizes["settle_s"])
            before = await _reconnects(reading)
            r0 = read(hall, reading)
            await asyncio.sleep(sizes["point_s"])
            r1 = read(hall, reading)
            points.append(_point(wanted, r0, r1))
            points[-1]["reconnects_in_window"] = await _reconnects(reading) - before
            say(f"{NAME}: {wanted} edges: {_short(points[-1])}")
    finally:
        _stop(edges)
    return points


async def _reconnects(edges: list[EdgeProcess]) -> int:
    """How often these edges' Redis links have reconnected so far."""
    healths = await asyncio.gather(*(asyncio.to_thread(e.health) for e in edges))
    return sum(int(h["bus"]["reconnects"]) for h in healths)


def _point(edges: int, r0: Reading, r1: Reading) -> dict[str, Any]:
    changes = r1.entries - r0.entries
    if changes <= 0:
        raise RuntimeError(f"no change reached the stream with {edges} edges")
    per_edge = [b - a for a, b in zip(r0.edges_s, r1.edges_s, strict=True)]
    return {
        "edges": edges,
        "changes": changes,
        "hub_us_per_change": (r1.hub_s - r0.hub_s) / changes * 1e6,
        "writer_us_per_change": (r1.writer_s - r0.writer_s) / changes * 1e6,
        "redis_us_per_change": (r1.redis_s - r0.redis_s) / changes * 1e6,
        "edge_us_per_change": statistics.mean(per_edge) / changes * 1e6 if per_edge else None,
    }


def _short(point: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}" for k, v in point.items())


async def serve(hall: RunningHall, edge: EdgeProcess, clients: int, sizes: dict[str, Any]) -> dict[str, Any]:
    """`clients` wall spectators on one edge over one window: its CPU and what they counted."""
    fleet = ClientFleet(
        edge.port, [["venue"]] * clients, "check", processes=sizes["client_processes"], batch=True
    )
    try:
        ready, failed = await fleet.start(within=60)
        say(f"{NAME}: {ready} clients on edge :{edge.port}, {failed} failed")
        t0 = time.time() + sizes["warmup_s"]
        t1 = t0 + sizes["window_s"]
        await fleet.window(t0, t1)
        await asyncio.sleep(max(0.0, t0 - time.time()))
        r0, us0 = read(hall, [edge]), edge.user_system_s()
        await asyncio.sleep(max(0.0, t1 - time.time()))
        r1, us1 = read(hall, [edge]), edge.user_system_s()
        results = await fleet.results(within=60)
    finally:
        await fleet.close()
    counted = {k: sum(r[k] for r in results) for k in ("frames", "checked", "gaps", "unparsed", "backwards")}
    return {
        "clients": ready,
        "failed": failed,
        "changes": r1.entries - r0.entries,
        "seconds": sizes["window_s"],
        "edge_cpu_s": r1.edges_s[0] - r0.edges_s[0],
        "edge_user_s": us1[0] - us0[0],
        "edge_system_s": us1[1] - us0[1],
        "messages": counted.pop("frames"),
        **counted,
        "closed": sum(r["closed"] for r in results),
    }


async def spectators(
    hall: RunningHall, edges: list[EdgeProcess], sizes: dict[str, Any]
) -> list[dict[str, Any]]:
    """Part 2, one side: the clients split evenly over `edges`, each edge timed serving its share.

    The edges share one core here, so each is timed in a window of its own while the others only read the
    stream (as each would run on a core of its own)."""
    share = sizes["clients"] // len(edges)
    return [await serve(hall, edge, share, sizes) for edge in edges]


def side(parts: list[dict[str, Any]], edges: int) -> dict[str, Any]:
    """One side's windows summed: its CPU per message over every window it was timed in."""
    total: dict[str, Any] = {k: sum(p[k] for p in parts) for k in parts[0]}
    # the clients of one round (each window holds 1/edges of them; rounds repeat the same clients)
    total["clients"] = sum(p["clients"] for p in parts) * edges // len(parts)
    total["edges"] = edges
    total["edge_us_per_message"] = (
        total["edge_cpu_s"] / total["messages"] * 1e6 if total["messages"] else math.inf
    )
    total["changes_per_message"] = total["checked"] / max(1, total["messages"])
    total["edge_us_per_change_delivered"] = total["edge_cpu_s"] / max(1, total["checked"]) * 1e6
    total["parts"] = parts
    return total


def fit_line(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least squares y = a + b x: (a, b)."""
    mx, my = statistics.mean(xs), statistics.mean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx if sxx else 0.0
    return my - b * mx, b


def model(
    points: list[dict[str, Any]], one: dict[str, Any], two: dict[str, Any], tables: int
) -> dict[str, Any]:
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
    # the two-edge side as the model sees it: each edge's messages from the fan-out's windows, then its CPU
    messages = predicted = 0.0
    for part in two["parts"]:
        rate = part["changes"] / part["seconds"] / tables
        part_messages = capacity.Hall(tables, rate, wall=part["clients"]).messages_per_s(1) * part["seconds"]
        messages += part_messages
        predicted += capacity.edge_cpu_s(costs, 1, part["changes"], part_messages)
    return {
        "costs": costs,
        "two_edges_messages_predicted": messages,
        "two_edges_cpu_s_predicted": predicted,
        "cpu_error": predicted / two["edge_cpu_s"] - 1 if two["edge_cpu_s"] else float("inf"),
        "messages_error": messages / two["messages"] - 1 if two["messages"] else float("inf"),
    }


async def scale_out(
    hall: RunningHall, sizes: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[float]]:
    """Part 2: rounds of the clients on one edge, then split over two; each side's windows, and each round's
    efficiency."""
    edges: list[EdgeProcess] = []
    await _add_edges(hall, edges, 2)
    try:
        server = hub_cpu()
        for edge in edges:  # timed on the CPU the clients are not on, as a server would be, beside a hub
            if server is not None:  # busy a few per cent of it
                edge.pin({server})
        ones: list[dict[str, Any]] = []
        twos: list[dict[str, Any]] = []
        rounds = []
        for n in range(sizes["rounds"]):  # the edges take turns at serving alone
            first, second = edges if n % 2 == 0 else edges[::-1]
            one = await spectators(hall, [first], sizes)
            two = await spectators(hall, [first, second], sizes)
            rounds.append(side(one, 1)["edge_us_per_message"] / side(two, 2)["edge_us_per_message"])
            ones += one
            twos += two
        return ones, twos, rounds
    finally:
        _stop(edges)


async def run(smoke: bool) -> Result:
    sizes = pick_sizes(FULL, SMOKE, smoke)
    notes = [raise_nofile(sizes["clients"] + 2048) or "open files enough"]
    if hub_cpu() is not None:
        notes.append(f"hub on CPU {hub_cpu()}; devices, Redis, edges and clients on CPU(s) {client_cpus()}")
    seconds = 300.0 if not smoke else 40.0  # boards write that long at most (a match ends sooner or later)
    async with running_hall(sizes, seconds) as hall:
        say(f"{NAME}: hub {hall.hub.pid} publishing to {hall.redis.url}")
        points = await readers(hall, sizes)
        ones, twos, rounds = await scale_out(hall, sizes)
    return _result(sizes, points, side(ones, 1), side(twos, 2), rounds, notes)


def _result(
    sizes: dict[str, Any],
    points: list[dict[str, Any]],
    one: dict[str, Any],
    two: dict[str, Any],
    rounds: list[float],
    notes: list[str],
) -> Result:
    fitted = model(points, one, two, sizes["tables"])
    costs: capacity.Costs = fitted["costs"]
    most = max(p["edges"] for p in points)
    hub_most = statistics.mean(p["hub_us_per_change"] for p in points if p["edges"] == most)
    hub_ratio = hub_most / costs.hub_us_per_change
    efficiency = one["edge_us_per_message"] / two["edge_us_per_message"]
    wrong = ("backwards", "closed", "failed", "unparsed")
    sound = all(measured[k] == 0 for measured in (one, two) for k in wrong)
    model_holds = abs(fitted["cpu_error"]) <= MODEL_WITHIN
    notes += [capacity.describe(h, capacity.plan(costs, h)) for h in REFERENCE_HALLS]
    return Result(
        name=NAME,
        unit="edge µs CPU/msg",
        ours=two["edge_us_per_message"],
        baseline=one["edge_us_per_message"],
        target=f"efficiency ≥ {EFFICIENCY}; hub CPU/change at {most} edges within {HUB_WITHIN:.0%} of 0; "
        f"model within {MODEL_WITHIN:.0%}",
        passed=efficiency >= EFFICIENCY and abs(hub_ratio - 1) <= HUB_WITHIN and sound and model_holds,
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
            "scale_out_efficiency_by_round": [round(r, 3) for r in rounds],
            "edge_cpu_us_per_change_delivered": {
                "1_edge": round(one["edge_us_per_change_delivered"], 3),
                "2_edges": round(two["edge_us_per_change_delivered"], 3),
            },
            "changes_per_message": {
                "1_edge": round(one["changes_per_message"], 2),
                "2_edges": round(two["changes_per_message"], 2),
            },
            "model_check": {
                "two_edges_messages": two["messages"],
                "two_edges_messages_predicted": round(fitted["two_edges_messages_predicted"]),
                "messages_error": round(fitted["messages_error"], 3),
                "two_edges_cpu_s": round(two["edge_cpu_s"], 3),
                "two_edges_cpu_s_predicted": round(fitted["two_edges_cpu_s_predicted"], 3),
                "cpu_error": round(fitted["cpu_error"], 3),
            },
            "reconnects_in_windows": sum(p["reconnects_in_window"] for p in points),
            "readers": [_rounded(p) for p in points],
            "spectators": [_rounded(measured) for measured in (one, two)],
            "cpus": len(os.sched_getaffinity(0)),
        },
        notes=notes,
    )


def _rounded(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return round(value, 3) if isinstance(value, float) else value
