"""What the device tests share: a sink that records what a session reports, bounded waits, owned tasks."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from typing import Any

from devices.link import Backoff
from devices.observations import LinkChange, LinkState, Observation, ScoreboardState
from devices.wire.codec import FrameError

FAST = Backoff(initial=0.05, factor=2.0, maximum=0.2, jitter=0.2)
EPOCH = 1_700_000_000


class RecordingSink:
    """Keeps everything a session reports, in order (the SessionSink protocol)."""

    def __init__(self) -> None:
        self.observations: list[Observation] = []
        self.links: list[LinkChange] = []
        self.errors: list[FrameError] = []
        self.batches: list[int] = []  # how many observations each `observe_many` call brought
        self.trail: list[object] = []  # observations and frame errors, in the order the sink got them

    def observe(self, observation: Observation) -> None:
        self.observe_many([observation])

    def observe_many(self, observations: Sequence[Observation]) -> None:
        self.observations.extend(observations)
        self.trail.extend(observations)
        self.batches.append(len(observations))

    def link_changed(self, change: LinkChange) -> None:
        self.links.append(change)

    def frame_error(self, url: str, device_id: str | None, error: FrameError, at: float) -> None:
        self.errors.append(error)
        self.trail.append(error)

    def states(self) -> list[ScoreboardState]:
        return [o.report for o in self.observations if isinstance(o.report, ScoreboardState)]

    def link_states(self) -> list[LinkState]:
        return [change.state for change in self.links]

    def connects(self) -> int:
        return sum(1 for change in self.links if change.state is LinkState.CONNECTED)

    def keys(self) -> list[tuple[str, int, int]]:
        return [(o.device_id, o.boot_epoch, o.seq) for o in self.observations]


async def eventually(condition: Callable[[], bool], seconds: float = 5.0) -> None:
    """Wait until condition() holds, for at most `seconds`."""
    async with asyncio.timeout(seconds):
        while not condition():
            await asyncio.sleep(0.005)


@contextlib.asynccontextmanager
async def running(*coroutines: Coroutine[Any, Any, None]) -> AsyncIterator[list[asyncio.Task[None]]]:
    """Run coroutines as tasks of one group for the duration of the block, then cancel them."""
    async with asyncio.TaskGroup() as group:
        tasks = [group.create_task(coroutine) for coroutine in coroutines]
        try:
            yield tasks
        finally:
            for task in tasks:
                task.cancel()
