"""Winning chances computed off the event loop, shown behind the broadcast delay.

Every position spectators see (`note`) goes to one worker process (`hub.rules.backgammon.chances.engine.evaluate_job`): a
process, not a thread, so the hub's interpreter lock is never held by the net's Python around it (a thread
made a 1 ms timer on the loop run 15 ms late while a burst was evaluated). The screens
show (`shown`) the chances of the newest position that is at least the venue's broadcast delay old, with the
time of that position, so a player cannot read the net's opinion of the game in front of them (players may
not use analysis software): with no delay, the current position's, as soon as the worker has it. When a
position's chances may be shown (evaluated, and old enough), `resend` is called on the event loop with the
match id, and the screens get the same state again with the chances. A screen update never waits for the
net.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections import OrderedDict, deque
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor
from typing import Any

from hub.rules.backgammon.chances.engine import Chances, Job, evaluable, evaluate_job, job_of, ready, warm
from hub.rules.backgammon.state import BackgammonState
from hub.rules.sport import shown_behind

log = logging.getLogger(__name__)

KEEP = 4096  # positions remembered: a hall's current ones many times over
HISTORY = 64  # positions kept per match, newest last: more than a broadcast delay covers


def worker() -> Executor:
    """One worker process with the net loaded (spawned: nothing of the hub's threads or sockets in it)."""
    return ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), initializer=warm)


class ChanceService:
    """A worker evaluating the positions spectators see, and what each match's screens may show.

    Positions go to the worker in batches: those noted while it works on one batch make the next (a hall
    after a restart notes all its positions at once; one round trip each kept the loop's helper threads
    busy pickling)."""

    def __init__(
        self,
        resend: Callable[[str], None],
        delay_s: float = 0.0,
        pool: Executor | None = None,
        job: Callable[[Job], Chances] = evaluate_job,
    ) -> None:
        self._resend = resend
        self._job = job
        self.delay_s = delay_s
        self._known: OrderedDict[Job, Chances] = OrderedDict()
        self._pending: dict[Job, set[str]] = {}  # position -> the matches waiting for it
        self._queue: list[Job] = []  # positions for the next batch
        self._busy = False  # a batch is with the worker
        self._seen: dict[str, deque[tuple[float, Job]]] = {}  # match id -> (when, position) newest last
        self._pool = pool or worker()
        self.evaluated = 0

    def start(self) -> None:
        """Start the worker and load its net now, so the first positions do not wait for either."""
        try:
            self._pool.submit(ready)
        except RuntimeError as error:  # a pool already shut down: the first batch says so
            log.warning("winning chances could not start their worker: %s", error)

    def note(self, match_id: str, state: BackgammonState, at: float) -> None:
        """A position spectators now see, since `at`: evaluate it, and show it once the delay has passed."""
        if not evaluable(state):
            return
        key = job_of(state)
        seen = self._seen.setdefault(match_id, deque(maxlen=HISTORY))
        if seen and seen[-1][1] == key:
            return
        seen.append((at, key))
        loop = asyncio.get_running_loop()
        if key in self._pending:
            self._pending[key].add(match_id)
        elif key not in self._known:
            self._pending[key] = {match_id}
            self._queue.append(key)
            self._send(loop)
        if self.delay_s > 0:
            loop.call_later(self.delay_s, self._resend, match_id)

    def shown(self, match_id: str, now: float) -> dict[str, Any] | None:
        """What the match's screens show at `now`: the chances of its newest position at least the delay old
        that has been evaluated, with that position's time (`at`); None before there is one."""
        return shown_behind(self._seen.get(match_id, ()), self._known, now, self.delay_s)

    def _send(self, loop: asyncio.AbstractEventLoop) -> None:
        """Hand the queued positions to the worker, unless it is still busy with a batch."""
        if self._busy or not self._queue:
            return
        batch, self._queue = self._queue[:BATCH], self._queue[BATCH:]
        try:
            future = loop.run_in_executor(self._pool, evaluate_batch, self._job, batch)
        except RuntimeError as error:  # the worker died (BrokenProcessPool): these go, the next try a new one
            self._lost(batch, error)
            return
        self._busy = True
        future.add_done_callback(lambda done: self._done(batch, done, loop))

    def _lost(self, batch: list[Job], error: BaseException) -> None:
        """A batch the worker could not evaluate: its positions show no chances; a new worker for the next."""
        log.warning("winning chances of %d positions failed: %s", len(batch), error)
        for key in batch:
            self._pending.pop(key, None)
        if isinstance(error, BrokenExecutor):
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = worker()

    def _done(
        self, batch: list[Job], done: asyncio.Future[list[Chances | None]], loop: asyncio.AbstractEventLoop
    ) -> None:
        self._busy = False
        if done.cancelled():
            return
        error = done.exception()
        if error is not None:  # the worker died under it: a new one takes the next batch
            self._lost(batch, error)
            self._send(loop)
            return
        for key, chances in zip(batch, done.result(), strict=True):
            waiting = self._pending.pop(key, set())
            if chances is None:
                continue
            self._known[key] = chances
            self.evaluated += 1
            for match_id in waiting:
                self._resend(match_id)
        while len(self._known) > KEEP:
            self._known.popitem(last=False)
        self._send(loop)

    def annotate(self, position: str) -> str | None:
        """None: the chances comment on no game record."""
        return None

    def report(self, match_id: str) -> dict[str, Any] | None:
        """None: no report beyond what the screens show."""
        return None

    def health(self) -> dict[str, Any]:
        """For /api/health: positions evaluated, and whether a batch is with the worker now."""
        return {"running": True, "evaluated": self.evaluated, "busy": self._busy}

    def close(self) -> None:
        """Stop the worker; a position still being evaluated is dropped."""
        self._pool.shutdown(wait=False, cancel_futures=True)


BATCH = 64  # positions a round trip to the worker, at most: under 1 ms of the net


def evaluate_batch(job: Callable[[Job], Chances], batch: list[Job]) -> list[Chances | None]:
    """The worker's side: each position's chances, None for one the net cannot take (it is logged there)."""
    out: list[Chances | None] = []
    for one in batch:
        try:
            out.append(job(one))
        except Exception as error:
            log.warning("winning chances of a position failed: %s", error)
            out.append(None)
    return out
