"""Backgammon winning chances: the net's numbers for the hub's own board (turned into GNU Backgammon's form
independently here), off the event loop, behind the broadcast delay, and off where the venue says so."""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from hub.rules.backgammon.chances import Chances, GnubgNet, evaluate, evaluate_job
from hub.rules.backgammon.chances.engine import Job
from hub.rules.backgammon.chances.service import ChanceService
from hub.rules.backgammon.model import Position
from hub.rules.backgammon.sport import BackgammonSport
from hub.rules.backgammon.state import BackgammonState, Phase, initial
from tests.conftest import start_demo
from tests.hub.test_backgammon_moves import gnubg, random_board  # noqa: F401  (gnubg: the fixture)


def gnubg_board(position: Position, on_roll: int) -> list[list[int]]:
    """GNU Backgammon's board for `on_roll` from the hub's signed points, written out here: each side counts
    its points from its own 1-point (A's point n is index n-1; B's is index 24-n), the bar last; the side on
    roll second."""
    a = [max(n, 0) for n in position.points] + [position.bar[0]]
    b = [max(-position.points[23 - i], 0) for i in range(24)] + [position.bar[1]]
    return [b, a] if on_roll == 0 else [a, b]


def states(seed: int, count: int) -> list[BackgammonState]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        turn = rng.randint(0, 1)
        position = Position.from_board(random_board(rng, rng.choice(["any", "bar", "bearoff"])), turn)
        score = (rng.randint(0, 6), rng.randint(0, 6))
        cube = rng.choice([1, 2, 4])
        out.append(
            replace(
                initial(7), phase=Phase.AWAIT_ROLL, position=position, turn=turn, score=score, cube_value=cube
            )
        )
    return out


def test_the_chances_are_the_nets_own_for_the_same_position(gnubg) -> None:  # noqa: F811
    net = GnubgNet()
    for state in states(7, 300):
        chances = evaluate(state, net)
        w, wg, wb, lg, lb = gnubg.probabilities(gnubg_board(state.position, state.turn), 0)
        me, other = state.turn, 1 - state.turn
        assert chances.win[me] == pytest.approx(w, abs=1e-6) and chances.win[other] == pytest.approx(1 - w)
        assert (chances.gammon[me], chances.backgammon[me]) == pytest.approx((wg, wb), abs=1e-6)
        assert (chances.gammon[other], chances.backgammon[other]) == pytest.approx((lg, lb), abs=1e-6)
        # the match: every outcome at the cube's value through gnubg's match equity table
        need = [7 - state.score[me], 7 - state.score[other]]

        def mwc(points: int, need: list[int] = need) -> float:
            mine, theirs = need[0] - max(points, 0), need[1] + min(points, 0)
            return 1.0 if mine <= 0 else 0.0 if theirs <= 0 else (1 + gnubg.equities.value(mine, theirs)) / 2

        c = state.cube_value
        expected = sum(
            p * mwc(k * c)
            for p, k in ((w - wg, 1), (wg - wb, 2), (wb, 3), (1 - w - lg, -1), (lg - lb, -2), (lb, -3))
        )
        assert chances.match is not None and chances.match[me] == pytest.approx(expected, abs=1e-6)
        assert sum(chances.match) == pytest.approx(1.0)


def slow_job(job: Job) -> Chances:
    """The worker's job, slowed down, leaving its process id where the test can read it."""
    Path(os.environ["CHANCES_PID_FILE"]).write_text(str(os.getpid()))
    time.sleep(0.5)
    return evaluate_job(job)


def test_evaluation_runs_in_its_worker_process_and_the_loop_never_waits(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CHANCES_PID_FILE", str(tmp_path / "pid"))

    async def run() -> None:
        ready: list[str] = []
        service = ChanceService(ready.append, job=slow_job)
        state = states(1, 1)[0]
        started = time.perf_counter()
        service.note("BG-1", state, time.time())
        assert time.perf_counter() - started < 0.05  # the caller (a screen update) never waits for the net
        assert service.shown("BG-1", time.time()) is None  # not yet: the screen shows no number for it
        late = 0.0
        while not ready:  # meanwhile the loop runs on time
            before = time.perf_counter()
            await asyncio.sleep(0.005)
            late = max(late, time.perf_counter() - before - 0.005)
        assert ready == ["BG-1"] and service.shown("BG-1", time.time())["win"]
        assert int((tmp_path / "pid").read_text()) != os.getpid()  # another process did the work
        assert late < 0.1, late
        service.close()

    asyncio.run(run())


def test_the_chances_show_only_once_the_broadcast_delay_has_passed() -> None:
    async def run() -> None:
        ready: list[str] = []
        service = ChanceService(ready.append, delay_s=0.5)
        state = states(2, 1)[0]
        at = time.time()
        service.note("BG-1", state, at)
        while len(ready) < 1:
            await asyncio.sleep(0.02)
        assert service.shown("BG-1", time.time()) is None  # evaluated, but the position is not old enough
        await asyncio.sleep(0.6)
        assert ready == ["BG-1", "BG-1"]  # and the screens are sent again when it is
        shown = service.shown("BG-1", time.time())
        assert shown is not None and shown["at"] == at
        service.close()

    asyncio.run(run())


def backgammon_messages(url: str, match_id: str, seconds: float) -> list[dict[str, Any]]:
    async def run() -> list[dict[str, Any]]:
        got = []
        async with connect(url) as ws:
            await ws.send(json.dumps({"subscribe": [f"match:{match_id}"]}))
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                try:
                    raw = await asyncio.wait_for(ws.recv(), max(0.01, deadline - time.monotonic()))
                except TimeoutError:
                    break
                message = json.loads(raw)
                got.extend(message if isinstance(message, list) else [message])
        return got

    return asyncio.run(run())


def checked_against_gnubg(messages: list[dict[str, Any]], gnubg: Any) -> int:  # noqa: F811
    """How many messages show the chances of their own position, each checked against gnubg-nn."""
    sport = BackgammonSport()
    checked = 0
    for message in messages:
        shown = (message.get("data") or {}).get("chances")
        if not shown:
            continue
        state = sport.from_dict(message["data"]["state"])
        if state.phase is not Phase.AWAIT_ROLL or shown["at"] != message["data"]["updated_at"]:
            continue  # the chances of a position before this one
        w = gnubg.probabilities(gnubg_board(state.position, state.turn), 0)[0]
        assert shown["win"]["AB".index(shown["on_roll"])] == pytest.approx(100 * w, abs=0.051)
        checked += 1
    return checked


def test_a_live_board_screen_gets_the_chances_of_its_position(tmp_path: Path, gnubg) -> None:  # noqa: F811
    demo = start_demo(tmp_path / "data", speed=10, tables=1, bg_tables=1, chess_boards=0)
    messages: list[dict[str, Any]] = []
    try:
        deadline = time.monotonic() + 90  # the worker's first start is slow on a busy machine
        while checked_against_gnubg(messages, gnubg) < 2 and time.monotonic() < deadline:
            messages += backgammon_messages(demo.ws_url, "BG-R1-T2", 10)
    finally:
        demo.stop()
    assert checked_against_gnubg(messages, gnubg) >= 2, [m.get("data", {}).get("chances") for m in messages][
        -5:
    ]
    # the same version went out first without the position's chances: the screen did not wait for them
    versions: dict[int, list[Any]] = {}
    for m in messages:
        versions.setdefault(m["version"], []).append((m["data"].get("chances") or {}).get("at"))
    assert any(len(set(seen)) > 1 for seen in versions.values())


VENUE = """\
[venue]
name = "Tavla Salonu"
winning_chances = {value}

[[tables]]
id = "T1"
sport = "backgammon"

[[matches]]
id = "BG-1"
table = "T1"
players = ["Hakan Yıldız", "Levent Şen"]
length = 7
"""


def test_a_venue_turns_the_chances_off_and_a_misspelt_value_is_refused() -> None:
    from hub.feed.fanout import Fanout
    from hub.hall.spectators import PublicHall
    from hub.rules.backgammon.chances import attach
    from hub.venue import VenueError, parse_venue

    on = PublicHall(parse_venue(VENUE.format(value="true"), Path("hall.toml")), Fanout())
    assert attach(on) is not None and "chances" in on.extras["backgammon"]
    off = PublicHall(parse_venue(VENUE.format(value="false"), Path("hall.toml")), Fanout())
    assert attach(off) is None and "backgammon" not in off.extras
    with pytest.raises(VenueError) as error:
        parse_venue(VENUE.format(value='"yes"'), Path("hall.toml"))
    assert error.value.field == "venue.winning_chances" and error.value.line == 3
    with pytest.raises(VenueError) as error:
        parse_venue(
            VENUE.format(value="true").replace("winning_chances", "winning_chance"), Path("hall.toml")
        )
    assert "winning_chances" in str(error.value)  # the nearest known key


def test_a_worker_killed_outright_is_replaced_and_the_next_positions_get_their_chances() -> None:
    import signal

    async def run() -> None:
        ready: list[str] = []
        service = ChanceService(ready.append)
        first, second, third = states(3, 3)

        async def until(count: int) -> None:
            async with asyncio.timeout(30):
                while len(ready) < count:
                    await asyncio.sleep(0.02)

        service.note("BG-1", first, time.time())
        await until(1)
        [pid] = list(service._pool._processes)
        os.kill(pid, signal.SIGKILL)
        await asyncio.sleep(0.5)
        service.note("BG-2", second, time.time())  # lost with the dead worker, or taken by the new one
        await asyncio.sleep(1.0)
        service.note("BG-3", third, time.time())
        await until(2)
        assert "BG-3" in ready and service.shown("BG-3", time.time()) is not None
        assert service._pool._processes and pid not in service._pool._processes
        service.close()

    asyncio.run(run())
