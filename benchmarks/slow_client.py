"""slow-client: 100 clients that never read, among 1,000 that do, against the same 1,000 alone.

One real hub (`HubRuntime`, the product's `stuck_after_s` of 10 s, its event log on the disk: when the temp
directory is tmpfs the log goes beside the project; the filesystem is reported), 200 tables changing once a
second, 1,000 reader clients each watching one match (a phone on a match page). The run is cut into `pairs`
pairs of equal phases, one with the slow clients and one without, in a balanced order (with-without,
without-with, ...: a drift over the run weighs on both kinds alike). Each "with" phase holds a new set of slow
clients' whole life: at its start 100 clients connect, subscribe to the venue and one match, take their
snapshot and never read again (4 KiB receive buffer); the hub's socket buffers fill in a few seconds, the hub
notices they are stuck and closes them `stuck_after_s` later; then their sockets are dropped, all before the
phase ends. Their client process is started once, before the first phase, and stays idle between sets, so no
process start or exit falls in a phase. The phases are as long as that life needs (`phase_s`, 15 s: they were
closed 11.6-12.9 s after connecting); the "without" phases as long. The matches are of 31 games, so that none
ends (and its table falls silent) before the run does (a best-of-7 match lasts 63-140 rallies, the run ~250 s
at a rally a second). A first set connects and falls behind in the warm-up, not compared: what the first venue
subscriber and the first client behind allocate once is not what a set costs. The readers keep a histogram per
second of each phase: pooled per phase for the figure, and per second across the phases of a kind
(`p99_by_slice_with_ms`, `..._without_ms`) to show where in its life a set's cost falls.

Why the log is on the disk now, and why so many phases: with the log on tmpfs (as this ran before) a commit
never waits for a flush, which no hall's hub has; on the disk a few commits a minute stall 4-25 ms, which
moved a 4.5 s phase's p99 by half and made the ratio's noise larger than the 10 % it tests. Longer phases
(15 s, ~15,000 timed frames each), eight pairs and an interval on the ratio make that noise visible instead.

Timing from outside the hub's loop: `ChangeDriver.outside` takes when each change is due from a process of its
own (`benchmarks.changeclock`) that stamps each report with the wall clock as it writes it into a pipe; the
hub's loop reads the pipe (as a device link) and keeps the stamp as the match's `updated_at`, and a reader's
latency is its receive time minus that stamp. A change that waits behind a stalled turn of the hub's loop (a
burst of slow clients connecting, closing them, a commit's flush) keeps its stamp, so the stall is in its
latency; when the driver ran inside the loop the stall delayed the stamps too and did not show. The run checks
that the hub kept the stamps (`stamps_not_kept`) and says how late the clock woke against its schedule.

The figure: readers' p99 over all "with" phases pooled, against the "without" phases pooled (that ratio is
the row's). Its 95 % interval (`ratio_ci_low`, `ratio_ci_high`) comes from resampling the pairs (bootstrap,
the pooled ratio recomputed from the resampled pairs' histograms); each pair's own ratio is listed too, with
their geometric mean and its t-based interval. With eight pairs a percentile bootstrap is, if anything, a
little narrow.

The null run, `BENCH_SIZES='{"slow": 0}'`, is the same method with no slow clients in either kind of phase:
its ratio and interval are the noise floor, what the machine gives the method when there is nothing to find.

Pass: the pooled ratio ≤ 1.10 (the details say whether the interval reaches past 1.10); in each "with" phase
every slow client connected and was closed by the hub within the phase; no reader closed; memory bounded: RSS
grew in the "with" phases by no more than 256 KiB per slow client (the transport's high-water mark and the
kernel's send buffer, with room) beyond what it grew in as long a time without them, across all the sets
(memory a set left behind would add up); and, for the run to be what it says, every table still changing at
the end (`tables_silent_before_end`) and the hub keeping the clock's stamps (`stamps_not_kept`). Smoke sizes
use a 0.1 s `stuck_after_s` and three changes per table a second, to fit in seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import math
import random
import sys
import time
from pathlib import Path
from typing import Any

import orjson

from benchmarks.changeclock import late_quantile_ms
from benchmarks.common import (
    HOST,
    ROOT,
    ChangeDriver,
    ClientFleet,
    Result,
    RssSampler,
    ThreadedHub,
    client_cpu,
    clients_snapshot,
    describe,
    filesystem,
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
from benchmarks.wsclient import BUCKETS_PER_MS

NAME = "slow-client"
FULL = {
    "readers": 1000,
    "slow": 100,
    "tables": 200,
    "rate": 1.0,  # changes per table per second
    "stuck_after_s": None,  # the product's (hub.web.STUCK_AFTER_S, 10 s)
    "connect_s": 30.0,
    "warmup_s": 4.0,
    "phase_s": 15.0,  # connect (< 1 s) + buffers filling (~1.5 s) + 10 s stuck + closing, with room
    "pairs": 8,
    "slices": 15,
}
SMOKE = {
    "readers": 20,
    "slow": 4,
    "tables": 200,
    "rate": 3.0,  # the slow clients' buffers fill three times as fast, so the phases can be short
    "stuck_after_s": 0.1,
    "connect_s": 10.0,
    "warmup_s": 0.6,
    "phase_s": 1.2,
    "pairs": 2,
    "slices": 2,
}
SLOW_CLIENT_BUDGET_KIB = 256
BEST_OF = 31
DROP_MARGIN_S = 0.3  # the slow clients' sockets are dropped at the latest this long before their phase ends
RESAMPLES = 2000
T_975 = (12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23, 2.20, 2.18, 2.16, 2.14, 2.13)


def phases(pairs: int) -> list[str]:
    """The phases' kinds in order: with-without, without-with, ... (pair i is phases 2i and 2i+1)."""
    out: list[str] = []
    for i in range(pairs):
        out += ["with", "without"] if i % 2 == 0 else ["without", "with"]
    return out


async def run(smoke: bool) -> Result:
    sizes = pick_sizes(FULL, SMOKE, smoke)
    notes = [pin_server()]
    if sizes["stuck_after_s"] is not None:
        notes.append(f"WebContext built with stuck_after_s={sizes['stuck_after_s']} s (the product's: 10 s)")
    raised = raise_nofile(sizes["readers"] + sizes["slow"] + 1024)
    if raised:
        notes.append(raised)
    kinds = phases(sizes["pairs"])
    with scratch(NAME) as data:
        on = describe(filesystem(data))
        r = await _alternate(sizes, kinds, data)
    p99, figures = _figures(r, kinds, sizes["slices"])
    ratio = p99["with"] / p99["without"] if p99["without"] else float("inf")
    memory = _memory(r["rss_growth_kib"], sizes["slow"])
    null = sizes["slow"] == 0  # the method on itself: both kinds of phase alike, so the ratio is its noise
    closed_in_phase = all(n == sizes["slow"] for n in r["slow_closed"]) and (
        null or None not in r["closed_after_s"]
    )
    passed = (
        ratio <= 1.10
        and memory["memory_bounded"]
        and closed_in_phase
        and all(n == sizes["slow"] for n in r["slow_connected"])
        and r["readers_closed"] == 0
        and r["ready"] == sizes["readers"]
        and r["stamps_not_kept"] == 0
        and r["tables_silent_before_end"] == 0
    )
    notes.append(
        "ratio: readers' p99 in the phases with the slow clients' whole life (connect, snapshot, stall, closed by "
        "the hub, dropped) over the phases without them, same hub, same readers, pooled per kind"
    )
    notes.append(f"event log on {on}; latency timed from the change's hand-over outside the hub's loop")
    if null:
        notes.append(
            "null run (slow=0): no slow clients in either kind of phase; the ratio and its interval are what "
            "this machine's noise gives the method when there is nothing to find"
        )
    return Result(
        name=NAME,
        unit="ms p99",
        ours=p99["with"],
        baseline=p99["without"],
        target="≤ 1.10× baseline p99, slow ones closed, memory bounded",
        passed=passed,
        sizes={
            **{k: v for k, v in sizes.items() if k != "stuck_after_s"},
            "stuck_after_s": sizes["stuck_after_s"] or 10.0,
            "phases": "-".join(kinds),
            "readers_watch": "one match",
            "slow_watch": "venue + one match",
        },
        details={
            **figures,
            "slow_connected": r["slow_connected"],
            "slow_closed_by_hub": r["slow_closed"],
            "slow_closed_after_s": r["closed_after_s"],
            "slow_connecting_s": r["connecting_s"],
            "hub_subscribers_after_each_set": r["subscribers_after"],
            "readers_closed": r["readers_closed"],
            **memory,
            "rss_peak_kib": r["rss_peak_kib"],
            "frames_per_s": round(r["frames_per_s"]),
            "stamps_not_kept": r["stamps_not_kept"],
            "tables_silent_before_end": r["tables_silent_before_end"],
            "driver_late_p99_ms": r["driver_late_p99_ms"],
            "driver_late_max_ms": r["driver_late_max_ms"],
            "filesystem": on,
        },
        notes=notes,
    )


async def _alternate(sizes: dict[str, Any], kinds: list[str], data: Path) -> dict[str, Any]:
    """One hub, the readers throughout, a new set of slow clients in each "with" phase."""
    tables, slow = sizes["tables"], sizes["slow"]
    total_s = sizes["warmup_s"] + sizes["phase_s"] * len(kinds)
    # matches of 31 games (273+ rallies), so that no table falls silent before the run ends (best-of-7: 63+)
    rate = sizes["rate"]
    driver = ChangeDriver(tables, rate=rate, seconds=total_s + 60, best_of=BEST_OF)
    quiet = SlowClients()
    await quiet.spawn()  # its interpreter starts while the hub does
    venue = tt_venue(tables, best_of=BEST_OF)
    short = sum(
        len(states) < rate * total_s + 2 for states in driver.states
    )  # tables whose match would end early
    hub = ThreadedHub(venue, data, stuck_after_s=sizes["stuck_after_s"])
    await hub.start()
    driver.outside(hub)
    topics = [[f"match:M1-T{i % tables + 1}"] for i in range(sizes["readers"])]
    slow_topics = [["venue", f"match:M1-T{i % tables + 1}"] for i in range(slow)]
    readers = ClientFleet(hub.port, topics, "updated", processes=2, batch=True)
    try:
        await quiet.start(hub.port)
        with RssSampler() as rss:
            say(f"{NAME}: connecting {sizes['readers']} readers")
            ready, failed = await readers.start(within=sizes["connect_s"])
            say(f"{NAME}: {ready} connected, {failed} failed; {len(kinds)} phases of {sizes['phase_s']} s")
            started = time.time()
            bounds = [started + sizes["warmup_s"] + k * sizes["phase_s"] for k in range(len(kinds) + 1)]
            driver.begin(started, bounds[-1] + 0.3)
            # the readers keep a histogram per slice of each phase (`slices` a phase): pooled per phase for
            # the figure, per slice across phases of a kind to show when in its phase a cost falls
            cuts = [
                b + (bounds[1] - bounds[0]) * j / sizes["slices"]
                for b in bounds[:-1]
                for j in range(sizes["slices"])
            ]
            await readers.window(bounds[0], bounds[-1], phases=cuts + bounds[-1:])
            # a first set in the warm-up, not compared: what the first venue subscriber and the first client
            # behind allocate once (topic state, buffers) is not what a set costs
            await quiet.connect(slow_topics, within=sizes["warmup_s"] / 2)
            await asyncio.sleep(max(0.0, bounds[0] - DROP_MARGIN_S - time.time()))
            await quiet.drop()
            sets: list[dict[str, Any]] = []
            rss_at: list[tuple[str, int, float]] = []  # as each phase begins
            for k, kind in enumerate(kinds):
                await asyncio.sleep(max(0.0, bounds[k] - time.time()))
                rss_at.append((kind, rss_kib(), time.time()))
                if kind == "with":
                    sets.append(await _slow_set(hub, quiet, slow_topics, bounds[k + 1], sizes["connect_s"]))
            await asyncio.sleep(max(0.0, bounds[-1] - time.time()))
            rss_at.append(("end", rss_kib(), time.time()))
            results = await readers.results(within=30)
            say(f"{NAME}: phases done")
        await asyncio.to_thread(driver.stop)
        n = sizes["slices"]
        sliced = [merge_hist([{"hist": r["hists"][k]} for r in results]) for k in range(len(kinds) * n)]
        return {
            "ready": ready,
            "hists": [
                merge_hist([{"hist": h} for h in sliced[k * n : (k + 1) * n]]) for k in range(len(kinds))
            ],
            "sliced": sliced,
            "frames_per_s": sum(r["frames"] for r in results) / (bounds[-1] - bounds[0]),
            "readers_closed": sum(r["closed"] for r in results),
            "slow_connected": [s["connected"] for s in sets],
            "slow_closed": [s["closed"] for s in sets],
            "closed_after_s": [s["closed_after_s"] for s in sets],
            "connecting_s": [s["connecting_s"] for s in sets],
            "subscribers_after": [s["subscribers_after"] for s in sets],
            "rss_peak_kib": rss.peak,
            "rss_growth_kib": [(a[0], b[1] - a[1], b[2] - a[2]) for a, b in itertools.pairwise(rss_at)],
            "stamps_not_kept": await asyncio.to_thread(driver.check_stamps, hub),
            "tables_silent_before_end": short,
            "driver_late_p99_ms": late_quantile_ms(driver.late_ms, 0.99),
            "driver_late_max_ms": late_quantile_ms(driver.late_ms, 1.0),
        }
    finally:
        await asyncio.to_thread(driver.stop)
        await quiet.close()
        await readers.close()
        if not await hub.stop(within=8.0):
            say(f"{NAME}: the hub did not stop within 8 s; left to the process exit")
        say(f"{NAME}: stopped")


async def _slow_set(
    hub: ThreadedHub, quiet: SlowClients, topics: list[list[str]], phase_end: float, connect_s: float
) -> dict[str, Any]:
    """One set of slow clients' whole life, inside the current phase: connect them, wait for the hub to
    close them all (until shortly before `phase_end`), then drop their sockets."""
    assert hub.ctx is not None
    before = hub.ctx.closed_stuck
    asked = time.time()
    connected = await quiet.connect(topics, within=min(connect_s, phase_end - asked - DROP_MARGIN_S))
    since = time.time()
    closed_after: float | None = None
    while time.time() < phase_end - DROP_MARGIN_S:
        if hub.ctx.closed_stuck - before >= connected > 0:
            closed_after = round(time.time() - since, 2)
            break
        await asyncio.sleep(0.05)
    closed = hub.ctx.closed_stuck - before
    await quiet.drop()
    return {
        "subscribers_after": len(clients_snapshot(hub.runtime.fanout.clients)),  # the readers' alone
        "connected": connected,
        "closed": closed,
        "closed_after_s": closed_after,
        "connecting_s": round(since - asked, 2),
    }


class SlowClients:
    """One client process (`python -m benchmarks.slowclients`), started once and idle between sets: on
    "connect" it connects a set of clients that take their snapshot and never read again, on "drop" it
    closes their sockets. Process start and exit stay out of the phases; the clients' lives do not."""

    def __init__(self) -> None:
        self.proc: asyncio.subprocess.Process | None = None

    async def spawn(self) -> None:
        """Start the process."""
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "benchmarks.slowclients",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            cwd=ROOT,
        )

    async def start(self, port: int) -> None:
        """Tell the process the hub's port (and pin it to the client CPU); return once it listens for sets."""
        await self._ask({"host": HOST, "port": port, "cpu": client_cpu()}, 20)

    async def connect(self, topics: list[list[str]], within: float) -> int:
        """Connect one client per topic list; how many took their snapshot in time."""
        reply = await self._ask({"connect": topics, "within": within}, within + 5)
        return int(reply["connected"])

    async def drop(self) -> None:
        """Close every socket of the current set."""
        await self._ask({"drop": True}, 10)

    async def close(self) -> None:
        """End the process; kill it if it does not end."""
        if self.proc is None:
            return
        with contextlib.suppress(Exception):
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        try:
            async with asyncio.timeout(10):
                await self.proc.wait()
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()

    async def _ask(self, message: dict[str, Any], within: float) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(orjson.dumps(message) + b"\n")
        await self.proc.stdin.drain()
        async with asyncio.timeout(within):
            line = await self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"slow-client process exited (code {await self.proc.wait()})")
        reply: dict[str, Any] = orjson.loads(line)
        return reply


def _figures(r: dict[str, Any], kinds: list[str], slices: int) -> tuple[dict[str, float], dict[str, Any]]:
    """The readers' pooled p99 of each kind, and the details about the ratio: its interval, each pair's
    ratio, the p50s, and the p99 by slice and by phase."""
    pairs = [_pair(r["hists"], kinds, i) for i in range(len(kinds) // 2)]
    pooled = {
        kind: merge_hist([{"hist": h} for h, k in zip(r["hists"], kinds, strict=True) if k == kind])
        for kind in ("without", "with")
    }
    low, high = _bootstrap(pairs)
    each = [percentile_ms(w, 0.99) / percentile_ms(wo, 0.99) for w, wo in pairs]
    geomean, t_low, t_high = _t_interval(each)
    return {kind: percentile_ms(hist, 0.99) for kind, hist in pooled.items()}, {
        "ratio_ci_low": round(low, 3),
        "ratio_ci_high": round(high, 3),
        "ci_includes_1_10": low <= 1.10 <= high,
        "ratio_each_pair": [round(x, 3) for x in each],
        "pair_ratio_geomean": round(geomean, 3),
        "pair_ratio_t_ci": [round(t_low, 3), round(t_high, 3)],
        "p50_with_ms": percentile_ms(pooled["with"], 0.50),
        "p50_without_ms": percentile_ms(pooled["without"], 0.50),
        "p99_by_slice_with_ms": _by_slice(r["sliced"], kinds, "with", slices),
        "p99_by_slice_without_ms": _by_slice(r["sliced"], kinds, "without", slices),
        "p99_each_phase_ms": [
            f"{kind} {percentile_ms(h, 0.99)}" for h, kind in zip(r["hists"], kinds, strict=True)
        ],
    }


def _by_slice(sliced: list[dict[int, int]], kinds: list[str], kind: str, n: int) -> list[float]:
    """The p99 of each slice of the phases of one kind, pooled across those phases."""
    return [
        percentile_ms(
            merge_hist([{"hist": sliced[k * n + j]} for k, x in enumerate(kinds) if x == kind]), 0.99
        )
        for j in range(n)
    ]


def _pair(hists: list[dict[int, int]], kinds: list[str], i: int) -> tuple[dict[int, int], dict[int, int]]:
    """Pair i's (with, without) histograms."""
    first, second = hists[2 * i], hists[2 * i + 1]
    return (first, second) if kinds[2 * i] == "with" else (second, first)


# -- statistics --------------------------------------------------------------------------------------------


def _bootstrap(pairs: list[tuple[dict[int, int], dict[int, int]]]) -> tuple[float, float]:
    """A 95 % percentile-bootstrap interval of the pooled p99 ratio, resampling whole pairs."""
    rng = random.Random(24)  # fixed: the same histograms give the same interval
    n = len(pairs)
    with_side = _Tail([w for w, _ in pairs])
    without_side = _Tail([wo for _, wo in pairs])
    ratios = []
    for _ in range(RESAMPLES):
        times = [0] * n
        for _ in range(n):
            times[rng.randrange(n)] += 1
        ratios.append(with_side.p99(times) / without_side.p99(times))
    ratios.sort()
    return ratios[int(0.025 * RESAMPLES)], ratios[int(0.975 * RESAMPLES) - 1]


class _Tail:
    """The p99 of a weighted sum of histograms, found from the top buckets down (only the tail is walked)."""

    def __init__(self, hists: list[dict[int, int]]) -> None:
        buckets = sorted({k for h in hists for k in h}, reverse=True)
        self.rows = [(k, [h.get(k, 0) for h in hists]) for k in buckets]
        self.totals = [sum(h.values()) for h in hists]

    def p99(self, times: list[int]) -> float:
        """As `percentile_ms(pooled, 0.99)` of the histograms taken `times[i]` times each."""
        total = sum(t * n for t, n in zip(times, self.totals, strict=True))
        allowed_above = (
            total - 0.99 * total
        )  # the answer is the lowest bucket with at most this many above it
        above = 0
        answer = self.rows[0][0]
        for k, counts in self.rows:
            count = sum(t * c for t, c in zip(times, counts, strict=True))
            if not count:
                continue
            if above > allowed_above:
                break
            answer = k
            above += count
        return (answer + 1) / BUCKETS_PER_MS


def _t_interval(ratios: list[float]) -> tuple[float, float, float]:
    """The geometric mean of per-pair ratios and its t-based 95 % interval."""
    logs = [math.log(x) for x in ratios]
    n = len(logs)
    mean = sum(logs) / n
    if n < 2:
        return math.exp(mean), float("nan"), float("nan")
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (n - 1))
    half = T_975[min(n - 2, len(T_975) - 1)] * sd / math.sqrt(n)
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def _memory(rss_growth: list[tuple[str, int, float]], slow: int) -> dict[str, Any]:
    """What RSS grew by in the "with" phases beyond what it grew by in as long a time without them (the
    hall's states grow as its matches go on), against the budget for one set of slow clients."""
    growth = {"with": 0, "without": 0}
    spent = {"with": 0.0, "without": 0.0}
    for side, grew, took in rss_growth:
        growth[side] += grew
        spent[side] += took
    beyond = growth["with"] - growth["without"] * spent["with"] / spent["without"]
    return {
        "rss_growth_with_kib": growth["with"],
        "rss_growth_without_kib": growth["without"],
        "rss_growth_beyond_kib": round(beyond),
        "rss_growth_each_kib": [f"{side} {grew}" for side, grew, _ in rss_growth],
        "memory_bounded": beyond <= SLOW_CLIENT_BUDGET_KIB * slow,
    }
