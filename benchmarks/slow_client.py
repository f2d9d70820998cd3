"""slow-client: 100 clients that never read, among 1,000 that do, against the same 1,000 alone.

Both runs: a fresh real hub (`HubRuntime`), 200 tables changing once a second through their `TableSink`s,
1,000 reader clients each watching one match (a phone on a match page), timed by `updated_at` as in
`spectators`. The slow run adds 100 clients on the venue and one match that never read after their
snapshot (4 KiB receive buffer). Loopback TCP still absorbs ~0.7 MB per socket before the hub's writes
block (measured: ~9 s of venue changes at 200 tables), so the window is long enough for block + close. The hub closes a client
whose socket stays blocked for `stuck_after_s`; this benchmark builds the hub's `WebContext` with 2 s
instead of the production 10 s (`STUCK_AFTER_S`) so the closing happens inside the window.

Pass: readers' p99 with the slow clients ≤ 1.10 × without; every slow client closed by the hub; no reader
closed; memory bounded: the slow run's RSS growth ≤ the plain run's + 256 KiB per slow client (the
transport's 64 KiB high-water mark and the kernel's send buffer, with room). The plain run goes first: a
process's first hub pays one-time costs (imports, allocator arenas, caches) that belong to no client.
Measured the other way round, 10 slow clients grew the first run by 32.4 MB and 100 slow clients by
36.2 MB: ~42 KiB per slow client, and ~30 MB that were the first run's, whatever ran in it.
"""

from __future__ import annotations

from benchmarks.common import Result, pin_server, raise_nofile
from benchmarks.common import sizes as pick_sizes
from benchmarks.spectators import spectate

NAME = "slow-client"
FULL = {
    "readers": 1000,
    "slow": 100,
    "tables": 200,
    "stuck_after_s": 2.0,
    "connect_s": 30.0,
    "warmup_s": 1.0,
    "window_s": 16.0,
}
SMOKE = {
    "readers": 20,
    "slow": 4,
    "tables": 200,
    "stuck_after_s": 1.0,
    "connect_s": 20.0,
    "warmup_s": 0.5,
    "window_s": 3.0,
}
SLOW_CLIENT_BUDGET_KIB = 256


async def run(smoke: bool) -> Result:
    sizes = pick_sizes(FULL, SMOKE, smoke)
    notes = [
        pin_server(),
        f"WebContext built with stuck_after_s={sizes['stuck_after_s']} s (production: 10 s) for both runs",
    ]
    raised = raise_nofile(sizes["readers"] + sizes["slow"] + 1024)
    if raised:
        notes.append(raised)
    common = {
        "clients": sizes["readers"],
        "tables": sizes["tables"],
        "connect_s": sizes["connect_s"],
        "warmup_s": sizes["warmup_s"],
        "window_s": sizes["window_s"],
        "client_processes": 2,
        "stuck_after_s": sizes["stuck_after_s"],
        "readers_watch_venue": False,
    }
    plain = await spectate(**common, label="slow-client-without")
    slow = await spectate(**common, silent=sizes["slow"], label="slow-client-with")
    ratio = slow["p99_ms"] / plain["p99_ms"] if plain["p99_ms"] else float("inf")
    grew_slow = slow["rss_peak_kib"] - slow["rss_before_kib"]
    grew_plain = plain["rss_peak_kib"] - plain["rss_before_kib"]
    memory_ok = grew_slow <= grew_plain + SLOW_CLIENT_BUDGET_KIB * sizes["slow"]
    slow_closed = slow["closed_stuck"]
    readers_closed = slow["readers_closed"] + plain["readers_closed"]
    connected = slow["ready"] == plain["ready"] == sizes["readers"] and slow["silent_ready"] == sizes["slow"]
    passed = (
        ratio <= 1.10 and memory_ok and slow_closed == sizes["slow"] and readers_closed == 0 and connected
    )
    return Result(
        name=NAME,
        unit="ms p99",
        ours=slow["p99_ms"],
        baseline=plain["p99_ms"],
        target="≤ 1.10× baseline p99, slow ones closed, memory bounded",
        passed=passed,
        sizes={**sizes, "readers_watch": "one match", "slow_watch": "venue + one match"},
        details={
            "p50_with_ms": slow["p50_ms"],
            "p50_without_ms": plain["p50_ms"],
            "slow_closed_by_hub": slow_closed,
            "readers_closed": readers_closed,
            "rss_growth_with_kib": grew_slow,
            "rss_growth_without_kib": grew_plain,
            "memory_bounded": memory_ok,
            "frames_per_s_with": round(slow["frames_per_s"]),
            "frames_per_s_without": round(plain["frames_per_s"]),
        },
        notes=notes,
    )
