"""The hub's clocked garbage collector: automatic collection off while it runs, cycles still freed."""

from __future__ import annotations

import asyncio
import gc
import weakref

import pytest

from hub.server import heap
from hub.server.heap import HeapStats, collect_on_a_clock


class _Node:
    """A cycle the reference counts alone never free."""

    def __init__(self) -> None:
        self.me = self


async def _until(condition) -> None:
    async with asyncio.timeout(5.0):
        while not condition():
            await asyncio.sleep(0.005)


async def test_cycles_are_freed_on_the_clock_with_the_automatic_collector_off() -> None:
    assert gc.isenabled()
    stats = HeapStats()
    task = asyncio.get_running_loop().create_task(collect_on_a_clock(stats, every_s=0.02))
    try:
        await asyncio.sleep(0)
        assert not gc.isenabled()
        node = _Node()
        gone = weakref.ref(node)
        del node
        kept = [[] for _ in range(20_000)]  # far past the 700 that would make CPython collect on its own
        del kept
        assert gone() is not None  # nothing collected it between ticks
        await _until(lambda: gone() is None)
        assert stats.young >= 1
        assert stats.longest_pause_ms > 0
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert gc.isenabled()  # back on when the hub stops


async def test_every_hundredth_collection_is_a_full_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap, "OLDEST_EVERY", 3)
    generations: list[int] = []
    monkeypatch.setattr(heap.gc, "collect", lambda generation=2: generations.append(generation) or 0)
    stats = HeapStats()
    task = asyncio.get_running_loop().create_task(collect_on_a_clock(stats, every_s=0.001))
    try:
        await _until(lambda: len(generations) >= 7)
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert generations[:7] == [1, 1, 2, 1, 1, 2, 1]
    assert (stats.young, stats.full) == (generations.count(1), generations.count(2))
