"""`boardcast demo` SIGKILLed in the middle of its chess round and started again on the same data: its
simulated DGT 3000 clocks go on from where they stood, as real ones that stayed on would, so the restart moves
no clock and the referee console shows no `chess.time_increased`."""

from __future__ import annotations

import asyncio
import sqlite3
import time
import urllib.request
from pathlib import Path

import orjson

from boardcast_sim.demo.run import CHESS_CONTROL
from hub.log.eventlog import unpack
from tests.conftest import get_json, start_demo
from tests.test_serve import wait_json

SPEED = 1.0  # the hub judges clocks by the wall clock: a faster demo's clocks would look fast to it
BOARDS = 2
INCREMENT_MS = int(CHESS_CONTROL.split("+")[1]) * 1000


def clock_readings(data: Path) -> list[tuple[float, str, dict]]:
    """Every clock reading the log holds for a chess game: (time received, match, reading), in order."""
    db = sqlite3.connect(data / "events.sqlite3")
    try:
        rows = db.execute(
            "SELECT at, match_id, body FROM events WHERE kind = 'device.report' AND match_id LIKE 'R2-M1-%' ORDER BY id"
        ).fetchall()
    finally:
        db.close()
    readings = [(at, match, unpack(body)["report"]) for at, match, body in rows]
    return [r for r in readings if r[2].get("type") == "clock"]


def console(url: str, token: str) -> list[dict]:
    """The referee console's matches."""
    request = urllib.request.Request(url + "api/referee/matches")
    request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10) as response:
        return orjson.loads(response.read())


async def test_a_demo_restart_mid_round_moves_no_clock(tmp_path: Path) -> None:
    data = tmp_path / "data"
    games = [f"R2-M1-B{b}" for b in range(1, BOARDS + 1)]
    demo = start_demo(data, speed=SPEED, tables=1, chess_boards=BOARDS, port=None)
    try:
        for game in games:  # every clock started and read
            await wait_json(
                demo.url + f"api/matches/{game}", lambda m: (m["state"]["clock"] or {}).get("running")
            )
        await wait_json(
            demo.url + f"api/matches/{games[0]}", lambda m: len(m["state"]["moves"]) >= 1, within=40
        )
        demo.kill()
        killed_at = time.time()
        last = {match: (at, r) for at, match, r in clock_readings(data)}  # the last reading of each before
        await asyncio.sleep(3.0)
        again = start_demo(data, speed=SPEED, tables=1, chess_boards=BOARDS, port=demo.port)
        try:
            for game in games:
                await wait_json(
                    again.url + f"api/matches/{game}", lambda m: m["state"]["clock"]["as_of"] > killed_at
                )
            first = {}
            for at, match, reading in clock_readings(data):
                if at > killed_at and match not in first:
                    first[match] = (at, reading)
            for game in games:
                (t0, before), (t1, after) = last[game], first[game]
                side, used = before["running"], round((t1 - t0) * SPEED * 1000)
                was, now = before["remaining_ms"], after["remaining_ms"]
                # the running side used the time that passed; the other kept its own
                if after["running"] == side:
                    assert abs(now[side] - (was[side] - used)) <= 1500, (game, before, after, t1 - t0)
                    assert now[1 - side] == was[1 - side], (game, before, after)
                else:  # the player who had moved pressed as the clock went on: one increment, never more
                    assert was[side] - used - 1500 <= now[side] <= was[side] + INCREMENT_MS, (
                        game,
                        before,
                        after,
                    )
                    assert abs(now[1 - side] - was[1 - side]) <= 1500, (game, before, after)
            shown = console(again.url, again.token)
            chess_codes = [a["code"] for m in shown if m["id"] in games for a in m["anomalies"]]
            assert "chess.time_increased" not in chess_codes, [
                m["anomalies"] for m in shown if m["id"] in games
            ]
            assert get_json(again.url + "api/health")["log"]["replayed_on_start"] > 0
        finally:
            again.stop()
    finally:
        if demo.proc.poll() is None:
            demo.kill()
