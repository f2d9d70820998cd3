"""slow-client: 100 clients that never read, among 1,000 that do, against the same 1,000 alone.

One real hub (`HubRuntime`), 200 tables changing once a second through their `TableSink`s, 1,000 reader
clients each watching one match (a phone on a match page), timed by `updated_at` as in `spectators`. The
window is cut into phases, with and without the slow clients, in a balanced order (with, without, without,
with, twice). Before each "with" phase, in a phase of its own that is not compared, 100 new clients connect,
subscribe to the venue and one match, and never read after their snapshot (4 KiB receive buffer): clients
connecting are not what this measures (with them connecting inside the "with" phases, the readers' p99 there
was 5.5–17.6 ms against 3.0–6.7). Loopback TCP still absorbs ~0.7 MB per socket before the hub's writes
block, so they are behind within ~1 s, and the hub closes them once their socket has stayed blocked for
`stuck_after_s` (built with 2 s instead of the production 10 s, `STUCK_AFTER_S`, so it happens inside the
phase: ~3.5 s after they connected). Their process ends in the next "connect" phase, off the client core's
compared time. The readers keep a latency histogram per phase; each kind's four phases are pooled.

Why one hub, and why its log is on tmpfs: six identical runs of a fresh hub gave the readers' p99 2.8, 3.5,
4.1, 4.1, 3.65 and 6.2 ms (p50 2.05–2.5), so comparing runs (two of each kind, ABBA, as the seventh session
did) measured which hub ran as much as the slow clients (0.89–1.16 on the same code). Phases of one hub
share what a run has, but with the log on disk a phase's p99 still moved 2.6–4.9 ms, set by the commits
whose flush stalls for 4–25 ms a few times a minute (ratios 1.03–1.43 in one order, 0.78–1.00 in another);
with the log on tmpfs, 1.7–2.65 ms. The disk is measured by `ingest` and `latency`; this measures the
fan-out with clients that stop reading.

Pass: readers' p99 in the "with" phases ≤ 1.10 × the "without" phases; in each "with" phase every slow
client closed by the hub within the phase; no reader closed; memory bounded: RSS at its peak no more than
256 KiB per slow client (the transport's 64 KiB high-water mark and the kernel's send buffer, with room)
above RSS before the first slow clients, across all four sets (memory one set left behind would add up).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from typing import Any

from benchmarks.common import (
    ChangeDriver,
    ClientFleet,
    Result,
    RssSampler,
    ThreadedHub,
    merge_hist,
    percentile_ms,
    pin_server,
    raise_nofile,
    rss_kib,
    say,
    scratch,
    tt_venue,
)
from benchmarks.common import sizes as pick_sizes

NAME = "slow-client"
FULL = {
    "readers": 1000,
    "slow": 100,
    "tables": 200,
    "stuck_after_s": 2.0,
    "connect_s": 30.0,
    "warmup_s": 1.0,
    "phase_s": 4.5,  # each; 18 s pooled for each kind
    "connect_phase_s": 1.0,  # the slow clients connect and subscribe: not compared
}
SMOKE = {
    "readers": 20,
    "slow": 4,
    "tables": 200,
    "stuck_after_s": 1.0,
    "connect_s": 20.0,
    "warmup_s": 0.5,
    "phase_s": 2.5,
    "connect_phase_s": 1.0,
}
SLOW_CLIENT_BUDGET_KIB = 256
PHASES = ("connect", "with", "without", "without", "connect", "with") * 2


async def run(smoke: bool) -> Result:
    sizes = pick_sizes(FULL, SMOKE, smoke)
    notes = [
        pin_server(),
        f"WebContext built with stuck_after_s={sizes['stuck_after_s']} s (production: 10 s)",
    ]
    raised = raise_nofile(sizes["readers"] + sizes["slow"] + 1024)
    if raised:
        notes.append(raised)
    r = await _alternate(sizes)
    pooled = {
        kind: merge_hist([{"hist": h} for h, k in zip(r["hists"], PHASES, strict=True) if k == kind])
        for kind in ("without", "with")
    }
    p99 = {kind: percentile_ms(hist, 0.99) for kind, hist in pooled.items()}
    p90 = {kind: percentile_ms(hist, 0.90) for kind, hist in pooled.items()}
    p50 = {kind: percentile_ms(hist, 0.50) for kind, hist in pooled.items()}
    ratio = p99["with"] / p99["without"] if p99["without"] else float("inf")
    # what RSS grew by in the phases with slow clients (their "connect" phase too) beyond what it grew by in
    # as long a time without them (the hall's states grow as its matches go on)
    growth = {"with": 0, "without": 0}
    spent = {"with": 0.0, "without": 0.0}
    for side, grew, took in r["rss_growth_kib"]:
        growth[side] += grew
        spent[side] += took
    beyond = growth["with"] - growth["without"] * spent["with"] / spent["without"]
    memory_ok = beyond <= SLOW_CLIENT_BUDGET_KIB * sizes["slow"]
    passed = (
        ratio <= 1.10
        and memory_ok
        and all(n == sizes["slow"] for n in r["slow_closed"])
        and all(n == sizes["slow"] for n in r["slow_connected"])
        and r["readers_closed"] == 0
        and r["ready"] == sizes["readers"]
    )
    return Result(
        name=NAME,
        unit="ms p99",
        ours=p99["with"],
        baseline=p99["without"],
        target="≤ 1.10× baseline p99, slow ones closed, memory bounded",
        passed=passed,
        sizes={
            **sizes,
            "phases": "-".join(PHASES),
            "readers_watch": "one match",
            "slow_watch": "venue + one match",
        },
        details={
            "p50_with_ms": p50["with"],
            "p50_without_ms": p50["without"],
            "p90_with_ms": p90["with"],
            "p90_without_ms": p90["without"],
            "p99_each_phase_ms": [
                f"{kind} {percentile_ms(h, 0.99)}"
                for h, kind in zip(r["hists"], PHASES, strict=True)
                if kind != "connect"
            ],
            "slow_closed_by_hub": r["slow_closed"],
            "slow_closed_after_s": r["closed_after_s"],
            "slow_connecting_s": r["connecting_s"],
            "readers_closed": r["readers_closed"],
            "rss_growth_with_kib": growth["with"],
            "rss_growth_without_kib": growth["without"],
            "rss_growth_beyond_kib": round(beyond),
            "rss_growth_each_kib": [f"{side} {grew}" for side, grew, _ in r["rss_growth_kib"]],
            "rss_peak_kib": r["rss_peak_kib"],
            "memory_bounded": memory_ok,
            "frames_per_s": round(r["frames_per_s"]),
        },
        notes=notes,
    )


async def _alternate(sizes: dict[str, Any]) -> dict[str, Any]:
    """One hub, the readers throughout, a new set of slow clients in each "with" phase."""
    tables, phase_s, slow = sizes["tables"], sizes["phase_s"], sizes["slow"]
    with scratch(NAME, in_memory=True) as data:
        lengths = [sizes["connect_phase_s"] if kind == "connect" else phase_s for kind in PHASES]
        total_s = sizes["warmup_s"] + sum(lengths)
        driver = ChangeDriver(tables, rate=1.0, seconds=total_s + 60)
        hub = ThreadedHub(tt_venue(tables), data, stuck_after_s=sizes["stuck_after_s"], jobs=(driver.job,))
        await hub.start()
        topics = [[f"match:M1-T{i % tables + 1}"] for i in range(sizes["readers"])]
        slow_topics = [["venue", f"match:M1-T{i % tables + 1}"] for i in range(slow)]
        readers = ClientFleet(hub.port, topics, "updated", processes=2, batch=True)
        try:
            with RssSampler() as rss:
                say(f"{NAME}: connecting {sizes['readers']} readers")
                ready, failed = await readers.start(within=sizes["connect_s"])
                say(f"{NAME}: {ready} connected, {failed} failed")
                started = time.time()
                bounds = [started + sizes["warmup_s"]]
                for length in lengths:
                    bounds.append(bounds[-1] + length)
                driver.window = (started, bounds[-1] + 0.3)
                await readers.window(bounds[0], bounds[-1], phases=bounds)
                slow_connected: list[int] = []
                slow_closed: list[int] = []
                closed_after_s: list[float | None] = []
                connecting_s: list[float] = []
                rss_at: list[
                    tuple[str, int, float]
                ] = []  # as each part begins: with (connect + with), without
                quiet: ClientFleet | None = None
                for k, kind in enumerate(PHASES):
                    await asyncio.sleep(max(0.0, bounds[k] - time.time()))
                    if kind != "with":
                        rss_at.append(("without" if kind == "without" else "with", rss_kib(), bounds[k]))
                    if kind == "connect":  # they connect now, are stuck and closed in the "with" phase after
                        if quiet is not None:  # the last phase's process ends here, off the compared phases
                            await quiet.close()
                        quiet = ClientFleet(hub.port, slow_topics, "silent", processes=1, batch=True)
                        connected, closed, after, took = await _slow_phase(hub, quiet, bounds[k + 2], sizes)
                        slow_connected.append(connected)
                        slow_closed.append(closed)
                        closed_after_s.append(after)
                        connecting_s.append(took)
                        continue
                    await asyncio.sleep(max(0.0, bounds[k + 1] - time.time()))
                rss_at.append(("end", rss_kib(), bounds[-1]))
                results = await readers.results(within=30)
                if quiet is not None:
                    await quiet.close()
            hists = [merge_hist([{"hist": r["hists"][k]} for r in results]) for k in range(len(PHASES))]
            return {
                "ready": ready,
                "hists": hists,
                "frames_per_s": sum(r["frames"] for r in results) / (bounds[-1] - bounds[0]),
                "readers_closed": sum(r["closed"] for r in results),
                "slow_connected": slow_connected,
                "slow_closed": slow_closed,
                "closed_after_s": closed_after_s,
                "connecting_s": connecting_s,
                "rss_peak_kib": rss.peak,
                "rss_growth_kib": [(a[0], b[1] - a[1], b[2] - a[2]) for a, b in itertools.pairwise(rss_at)],
            }
        finally:
            await readers.close()
            if not await hub.stop(within=8.0):
                say(f"{NAME}: the hub did not stop within 8 s; left to the process exit")


async def _slow_phase(
    hub: ThreadedHub, quiet: ClientFleet, phase_end: float, sizes: dict[str, Any]
) -> tuple[int, int, float | None, float]:
    """Connect the slow clients and wait for the hub to close them, until `phase_end`: how many connected,
    how many the hub closed, how long after they connected the last was closed, and how long connecting took
    (the "connect" phase is meant to hold it). Their process is left running (its exit is CPU on the client
    core the readers use: the caller ends it in the next "connect" phase)."""
    assert hub.ctx is not None
    before = hub.ctx.closed_stuck
    asked = time.time()
    connected, _ = await quiet.start(within=sizes["connect_s"])
    since = time.time()
    await quiet.window(since, since)  # it reports at once, within the "connect" phase
    await quiet.results(within=10)
    closed_after: float | None = None
    while time.time() < phase_end:
        if hub.ctx.closed_stuck - before >= connected:
            closed_after = round(time.time() - since, 2)
            break
        await asyncio.sleep(0.05)
    return connected, hub.ctx.closed_stuck - before, closed_after, round(since - asked, 2)
