"""The hub's garbage-collection policy: what was loaded is left out, and the young is collected on a clock.

Nearly all the hub's garbage (frames, reports, log rows, states) is freed by reference counts: it has no
cycles. CPython's cyclic collector still runs every 700 container allocations and walks every young object
still alive, which under a burst of reports is every row waiting for its commit (tens of milliseconds) and
every state the hall keeps. Measured on the ingest benchmark: 1,100 collections a run, 9–12 % of its time,
freeing nothing; raising the allocation threshold does not help, since each collection then walks more.

So while a hub runs, the young generations are collected once a second (what is walked then is what lived
through that second: mostly states the hall keeps, not the rows and frames already gone), the oldest every
hundred seconds, and the automatic collector is off. (Kept as a backstop with a threshold of 500,000
containers it fired twice in an ingest run, each walk as long as all the small ones: no gain.) An event loop
held up for seconds delays the collection with everything else; the garbage it leaves is only cycles.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable
from dataclasses import dataclass

from hub.server import allocator

YOUNG_EVERY_S = 1.0
OLDEST_EVERY = 100  # young collections between full ones


@dataclass(slots=True)
class HeapStats:
    """What the clocked collector did: how often, and its longest pause."""

    young: int = 0
    full: int = 0
    longest_pause_ms: float = 0.0
    given_back: int = 0  # times memory freed after a burst went back to the system (hub.server.allocator)
    returned_mb: float = 0.0  # resident memory those give-backs returned, in all


def settle() -> None:
    """Once the hall is loaded: collect, then leave what was loaded out of every later collection.

    A full collection walks every live object, ~110 ms over a loaded hall; what was loaded lives as long as
    the hub does, so `gc.freeze` moves it where no collection looks."""
    gc.collect()
    gc.freeze()


async def collect_on_a_clock(stats: HeapStats | None = None, every_s: float = YOUNG_EVERY_S) -> None:
    """Collect the young generations every `every_s` seconds and all of them every `OLDEST_EVERY` times,
    for as long as the task runs, with the automatic collector off; it is back on when the task stops."""
    stats = stats if stats is not None else HeapStats()
    automatic = gc.isenabled()
    gc.disable()
    try:
        while True:
            await asyncio.sleep(every_s)
            full = (stats.young + stats.full + 1) % OLDEST_EVERY == 0
            started = time.perf_counter()
            gc.collect(2 if full else 1)
            pause_ms = (time.perf_counter() - started) * 1000
            stats.longest_pause_ms = max(stats.longest_pause_ms, pause_ms)
            if full:
                stats.full += 1
            else:
                stats.young += 1
    finally:
        if automatic:
            gc.enable()


async def give_back_after_bursts(
    ebbed: Callable[[], bool], stats: HeapStats | None = None, every_s: float = YOUNG_EVERY_S
) -> None:
    """Every `every_s` seconds, when `ebbed()` says a burst of connections has gone, return what it freed:
    a full collection first (it also empties the interpreter's free lists, thousands of tuples and frames
    kept for reuse), then every whole free page the allocator holds (`hub.server.allocator`)."""
    stats = stats if stats is not None else HeapStats()
    while True:
        await asyncio.sleep(every_s)
        if not ebbed():
            continue
        before = allocator.resident_bytes()
        started = time.perf_counter()
        gc.collect(2)
        allocator.trim()
        stats.longest_pause_ms = max(stats.longest_pause_ms, (time.perf_counter() - started) * 1000)
        stats.given_back += 1
        stats.returned_mb = round(
            stats.returned_mb + max(0, before - allocator.resident_bytes()) / (1 << 20), 1
        )
