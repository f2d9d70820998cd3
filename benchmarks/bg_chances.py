"""bg-chances: winning chances per position, as the backgammon screens get them.

Ours: `hub.rules.backgammon.chances.evaluate` on hub states (the board turned into GNU Backgammon's form, the net's cubeless
probabilities, the match chances through the match equity table at the score and cube). Baseline, in the
same run: gnubg-nn's `probabilities` alone on boards prepared beforehand (what the net costs with nothing
around it). The net remembers positions it has seen, so each side gets positions of its own, new to the net,
from the same random play, in alternating rounds. Then the screens' side: a burst of positions noted on a
`ChanceService` (its worker process) from the event loop while a timer measures how late the loop runs (a
screen update waits that long at most), and the time from a position noted to its chances ready.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from dataclasses import replace

from benchmarks.common import Result, say
from benchmarks.common import sizes as pick_sizes
from hub.rules.backgammon.chances import GnubgNet, engine, evaluate
from hub.rules.backgammon.chances.service import ChanceService
from hub.rules.backgammon.model import Position
from hub.rules.backgammon.state import BackgammonState, Phase, initial

NAME = "bg-chances"
FULL = {"positions": 20_000, "burst": 2_000}
SMOKE = {"positions": 500, "burst": 100}


def _positions(count: int, seed: int = 11) -> list[BackgammonState]:
    """Positions of random play from the start (each side moving a random checker by a random die)."""
    rng = random.Random(seed)
    out = []
    points = list(Position.from_position_id("4HPwATDgc/ABMA").points)
    for i in range(count):
        if i % 60 == 0:
            points = list(Position.from_position_id("4HPwATDgc/ABMA").points)
        for _ in range(2):  # shuffle checkers forward a little: varied contact and race positions
            src = rng.choice([p for p in range(24) if points[p] > 0] or [0])
            dst = src - rng.randint(1, 6)
            if points[src] > 0 and dst >= 0 and points[dst] >= -1:
                points[src] -= 1
                points[dst] = 1 if points[dst] == -1 else points[dst] + 1
        off = (15 - sum(n for n in points if n > 0), 15 - sum(-n for n in points if n < 0))
        turn = i % 2
        position = Position(tuple(points), (0, 0), off, turn)
        out.append(
            replace(
                initial(7),
                phase=Phase.AWAIT_ROLL,
                position=position,
                turn=turn,
                score=(rng.randint(0, 6), rng.randint(0, 6)),
                cube_value=rng.choice([1, 2, 4]),
            )
        )
    return out


async def _loop_lag(service: ChanceService, states: list[BackgammonState]) -> tuple[list[float], list[float]]:
    """Note the positions one a turn of the loop, as public changes come; measure the loop's lateness and
    each new position's time from noted to ready (one already known needs no evaluation)."""
    noted: dict[str, float] = {}
    ready: dict[str, float] = {}
    waiting = 0
    done = asyncio.Event()

    def resend(match_id: str) -> None:
        ready.setdefault(match_id, time.perf_counter())
        if len(noted) == len(states) and len(ready) >= waiting:
            done.set()

    service._resend = resend
    lags: list[float] = []
    stop = False

    async def ticker() -> None:
        while not stop:
            before = time.perf_counter()
            await asyncio.sleep(0.001)
            lags.append(time.perf_counter() - before - 0.001)

    tick = asyncio.create_task(ticker())
    for i, state in enumerate(states):
        match_id = f"BG-{i}"
        waiting += engine.job_of(state) not in service._known
        noted[match_id] = time.perf_counter()
        service.note(match_id, state, time.time())
        await asyncio.sleep(0)
    if len(ready) >= waiting:
        done.set()
    async with asyncio.timeout(60):
        await done.wait()
    stop = True
    await tick
    waits = [ready[m] - noted[m] for m in ready]
    return lags, waits


async def _idle_lag(seconds: float) -> list[float]:
    """The same 1 ms timer on a loop with nothing else to do, for as long: the machine's own lateness."""
    lags = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        before = time.perf_counter()
        await asyncio.sleep(0.001)
        lags.append(time.perf_counter() - before - 0.001)
    return sorted(lags)


async def run(smoke: bool) -> Result:
    """Positions per second, ours against the net alone; the loop's lateness while the worker runs."""
    sizes = pick_sizes(FULL, SMOKE, smoke)
    net = GnubgNet()
    n = sizes["positions"]
    ours_s, base_s = [], []
    for r in range(3):  # alternating rounds, each on positions the net has not seen: best of three
        mine, theirs = _positions(n, seed=100 + 2 * r), _positions(n, seed=101 + 2 * r)
        boards = [[list(b) for b in s.position.with_turn(s.turn).board()] for s in theirs]
        nn = net._nn
        for side in (0, 1) if r % 2 == 0 else (1, 0):
            started = time.perf_counter()
            if side == 0:
                for state in mine:
                    evaluate(state, net)
                ours_s.append(time.perf_counter() - started)
            else:
                for board in boards:
                    nn.probabilities(board, 0)
                base_s.append(time.perf_counter() - started)
    states = _positions(n, seed=999)
    per = []
    for state in states[:2000]:
        started = time.perf_counter()
        evaluate(state, net)
        per.append((time.perf_counter() - started) * 1e6)
    per.sort()
    service = ChanceService(lambda _: None)
    await asyncio.get_running_loop().run_in_executor(service._pool, engine.ready)
    lags, waits = await _loop_lag(service, _positions(sizes["burst"], seed=5))
    service.close()
    idle = await _idle_lag(max(0.5, len(lags) * 0.0012))
    idle_p99_ms = 1000 * idle[int(0.99 * (len(idle) - 1))]
    lags.sort()
    ours = n / min(ours_s)
    baseline = n / min(base_s)
    lag_p99_ms = 1000 * lags[int(0.99 * (len(lags) - 1))] if lags else 0.0
    say(f"{NAME}: {ours:,.0f} positions/s, net alone {baseline:,.0f}/s; loop lag p99 {lag_p99_ms:.2f} ms")
    return Result(
        NAME,
        "positions/s",
        ours,
        baseline,
        "p99 < 1 ms a position; loop lag p99 within 2 ms of an idle loop's while a burst is evaluated",
        per[int(0.99 * (len(per) - 1))] < 1000 and lag_p99_ms < idle_p99_ms + 2.0,
        sizes,
        details={
            "us_per_position_p50": round(per[len(per) // 2], 1),
            "us_per_position_p99": round(per[int(0.99 * (len(per) - 1))], 1),
            "net_alone_us_per_position": round(1e6 / baseline, 1),
            "loop_lag_p50_ms": round(1000 * statistics.median(lags), 3) if lags else None,
            "loop_lag_p99_ms": round(lag_p99_ms, 3),
            "idle_loop_lag_p99_ms": round(idle_p99_ms, 3),
            "burst": sizes["burst"],
            "ready_p50_ms": round(1000 * statistics.median(waits), 2) if waits else None,
            "ready_max_ms": round(1000 * max(waits), 2) if waits else None,
        },
        notes=[
            "ours: hub state -> GNU Backgammon board, 0-ply cubeless probabilities, match chances at the score "
            "and cube; baseline: gnubg-nn probabilities() alone on boards prepared before timing; each on "
            "positions new to the net (it caches evaluations)",
            "the burst: positions noted from the event loop at once (a whole hall after a restart); the lag "
            "is how late a 1 ms timer fires meanwhile, the ready time from note to chances",
        ],
    )
