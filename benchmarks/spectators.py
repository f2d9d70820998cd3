"""spectators: thousands of phones, each on the venue wall and one match, while 200 tables change at 1 Hz.

Server: the real hub (`HubRuntime`: Hall, EventLog with synchronous=FULL, Fanout, the Starlette/uvicorn
websockets-sansio app). Changes enter through each table's real `TableSink` (no wire, see ChangeDriver), so
every change is logged and committed before it is published. Clients: `benchmarks.wsclient` processes.

Timing, from outside the hub's loop: when each change is due is decided by `benchmarks.changeclock`, a
process of its own (`ChangeDriver.outside`), which writes (table, step, wall-clock stamp) into a pipe as it
falls due; the hub's loop reads the pipe as it would a device link and hands each report to the table's sink
with that stamp, which the hub keeps as the match's `updated_at`. A frame's latency is its receive time in
the client process minus the `updated_at` it carries (the same machine clock). A report that waits behind a
stalled turn of the hub's loop keeps the stamp of when it was written, so the stall is in every latency it
delays; with the driver inside the loop (as before, `BENCH_SIZES='{"timing": "inside"}'` to compare) a stall
delayed the reports and their stamps too, and did not show. The run checks that the hub kept the stamps
(`stamps_not_kept`, 0) and says how late the clock woke against its schedule (`driver_late_p99_ms`).
Snapshots are not timed. Every client reads every frame; at full size every
10th client of each client process also times every change it receives (500 of 5,000): 200 tables at 1 Hz
are a million wall entries a second across 5,000 clients, more than one client core can parse, and a client
that cannot keep up would be measuring itself.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from benchmarks.changeclock import late_quantile_ms
from benchmarks.common import (
    ChangeDriver,
    ClientFleet,
    Result,
    RssSampler,
    ThreadedHub,
    clients_snapshot,
    merge_hist,
    percentile_ms,
    pin_server,
    raise_nofile,
    rss_kib,
    say,
    scratch,
    tt_venue,
)
from benchmarks.common import (
    sizes as pick_sizes,
)

NAME = "spectators"
FULL = {
    "clients": 5000,
    "tables": 200,
    "connect_s": 30.0,
    "warmup_s": 2.0,
    "window_s": 10.0,
    "client_processes": 4,
    "timed_every": 10,
    "timing": "outside",
}
SMOKE = {
    "clients": 40,
    "tables": 8,
    "connect_s": 20.0,
    "warmup_s": 0.5,
    "window_s": 1.5,
    "client_processes": 2,
    "timed_every": 1,
    "timing": "outside",
}


async def spectate(
    *,
    clients: int,
    tables: int,
    connect_s: float,
    warmup_s: float,
    window_s: float,
    client_processes: int,
    timed_every: int = 1,
    silent: int = 0,
    stuck_after_s: float | None = None,
    readers_watch_venue: bool = True,
    timing: str = "outside",
    label: str,
) -> dict[str, Any]:
    """One run: a hub, `clients` readers (+ `silent` that never read), changes at 1 Hz per table.

    Readers watch the venue and one match (or only the match); silent clients the venue and one match.
    """
    # "inside": the driver runs in the hub's loop, as before; only for comparing the two (BENCH_SIZES)
    driver_inside = timing == "inside"
    with scratch(label) as data:
        driver = ChangeDriver(tables, rate=1.0, seconds=warmup_s + window_s + 60)
        jobs = (driver.job,) if driver_inside else ()
        hub = ThreadedHub(tt_venue(tables), data, stuck_after_s=stuck_after_s, jobs=jobs)
        await hub.start()
        if not driver_inside:
            driver.outside(hub)
        rss_before = rss_kib()
        topics = [["venue", f"match:M1-T{i % tables + 1}"] for i in range(max(clients, silent))]
        reader_topics = topics[:clients] if readers_watch_venue else [t[1:] for t in topics[:clients]]
        readers = ClientFleet(
            hub.port,
            reader_topics,
            "updated",
            processes=client_processes,
            batch=True,
            timed_every=timed_every,
        )
        quiet = ClientFleet(hub.port, topics[:silent], "silent", processes=1, batch=True) if silent else None
        try:
            with RssSampler() as rss:
                say(f"{label}: connecting {clients} clients")
                ready, failed = await readers.start(within=connect_s)
                silent_ready = (await quiet.start(within=connect_s))[0] if quiet else 0
                say(f"{label}: {ready} connected, {failed} failed")
                rss_connected = rss_kib()
                started = time.time()
                t0 = started + warmup_s
                t1 = t0 + window_s
                if driver_inside:
                    driver.window = (started, t1 + 0.3)
                else:
                    driver.begin(started, t1 + 0.3)
                await readers.window(t0, t1)
                if quiet:
                    await quiet.window(t0, t1)
                results = await readers.results(within=warmup_s + window_s + 30)
                elapsed = time.time() - started
            await asyncio.to_thread(driver.stop)
            await asyncio.sleep(max(0.0, t1 + 0.3 - time.time()))  # the inside driver's reports end
            stamps_not_kept = await asyncio.to_thread(driver.check_stamps, hub)
            assert hub.ctx is not None
            subscribers = clients_snapshot(hub.runtime.fanout.clients)
            closed_stuck = hub.ctx.closed_stuck
            hist = merge_hist(results)
            frames = sum(r["frames"] for r in results)
            return {
                "ready": ready,
                "failed": failed,
                "silent_ready": silent_ready,
                "p50_ms": percentile_ms(hist, 0.50),
                "p99_ms": percentile_ms(hist, 0.99),
                "hist": hist,
                "max_ms": percentile_ms(hist, 1.0),
                "timed_frames": sum(hist.values()),
                "frames_per_s": frames / window_s,
                "changes_per_s": driver.sent / elapsed,
                "readers_closed": sum(r["closed"] for r in results),
                "close_codes": _merge_codes(results),
                "closed_stuck": closed_stuck,
                "coalesced": sum(c.coalesced for c in subscribers),
                "rss_before_kib": rss_before,
                "rss_connected_kib": rss_connected,
                "rss_peak_kib": rss.peak,
                "unparsed": sum(r["unparsed"] for r in results),
                "stamps_not_kept": stamps_not_kept,
                "driver_late_p99_ms": late_quantile_ms(driver.late_ms, 0.99),
                "driver_late_max_ms": late_quantile_ms(driver.late_ms, 1.0),
            }
        finally:
            await asyncio.to_thread(driver.stop)
            if quiet:
                await quiet.close()
            await readers.close()
            if not await hub.stop(within=8.0):
                say(f"{label}: the hub did not stop within 8 s; left to the process exit")


def _merge_codes(results: list[dict[str, Any]]) -> dict[str, int]:
    codes: dict[str, int] = {}
    for r in results:
        for k, v in r.get("close_codes", {}).items():
            codes[k] = codes.get(k, 0) + v
    return codes


async def run(smoke: bool) -> Result:
    sizes = pick_sizes(FULL, SMOKE, smoke)
    notes = [pin_server()]
    raised = raise_nofile(sizes["clients"] + 1024)
    if raised:
        notes.append(raised)
    r = await spectate(**sizes, label=NAME)
    per_client = (r["rss_peak_kib"] - r["rss_before_kib"]) / sizes["clients"]
    evicted = r["readers_closed"] + r["closed_stuck"]
    not_connected = sizes["clients"] - r["ready"]
    passed = (
        r["p99_ms"] < 250
        and evicted == 0
        and not_connected == 0
        and per_client < 30
        and r["stamps_not_kept"] == 0
    )
    notes.append(
        "latency: client receive time minus the stamp taken as the change was written by a clock process "
        "outside the hub (benchmarks.changeclock)"
    )
    return Result(
        name=NAME,
        unit="ms p99",
        ours=r["p99_ms"],
        baseline=None,
        target="p99 < 250 ms, 0 evicted, RSS < 30 KiB/client",
        passed=passed,
        sizes={**sizes, "changes": "1 per table per second"},
        details={
            "p50_ms": r["p50_ms"],
            "p99_ms": r["p99_ms"],
            "max_ms": r["max_ms"],
            "evicted": evicted,
            "close_codes": r["close_codes"],
            "not_connected_in_time": not_connected,
            "rss_growth_kib_per_client": round(per_client, 1),
            "frames_delivered_per_s": round(r["frames_per_s"]),
            "changes_per_s": round(r["changes_per_s"], 1),
            "frames_coalesced": r["coalesced"],
            "timed_frames": r["timed_frames"],
            "stamps_not_kept": r["stamps_not_kept"],
            "driver_late_p99_ms": r["driver_late_p99_ms"],
            "driver_late_max_ms": r["driver_late_max_ms"],
        },
        notes=notes,
    )
