"""A real hub in a background thread for the reliability tests: its own event loop, log, web server and feeder.

The tests drive it from outside with real HTTP and WebSocket clients, as phones and referees would, and may
use Hypothesis (which wants plain functions) while the hub keeps serving.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.error
import urllib.request
from dataclasses import replace
from pathlib import Path
from typing import Any

from boardcast_sim.pty import open_pty_pair
from boardcast_sim.tabletennis import TableTennisScoreboard
from devices.observations import Observation, ScoreboardState
from hub.matches import MatchInfo
from hub.referee.tokens import hash_token
from hub.server.app import HubRuntime
from hub.server.limits import WebLimits
from hub.venue import PlayerConfig, RefereeConfig, TableConfig, Venue
from tests.conftest import free_port

TOKEN = "reliability-referee-token-7f3a"
TABLES = 4
ROUNDS = 20  # 80 matches: more topics than one client may hold
PHONE, EMAIL = "+90 555 010 2026", "private.player@example.org"
BOARD_ID = "tt-board-1"  # the simulated scoreboard on table T1, with `HubThread(board=True)`


def hall_venue() -> Venue:
    """Four table-tennis tables, twenty rounds, players with private contacts, one chief referee."""
    tables = tuple(TableConfig(id=f"T{i}", sport="tabletennis") for i in range(1, TABLES + 1))
    matches = tuple(
        MatchInfo(f"R{r}-T{i}", "tabletennis", f"T{i}", r, (f"Oyuncu {i}A", f"Oyuncu {i}B"), 5)
        for r in range(1, ROUNDS + 1)
        for i in range(1, TABLES + 1)
    )
    players = tuple(
        PlayerConfig(f"Oyuncu {i}{s}", "Kulüp", "İzmir", phone=f"{PHONE}{i}{s}", email=f"{i}{s}.{EMAIL}")
        for i in range(1, TABLES + 1)
        for s in "AB"
    )
    referees = (RefereeConfig("Başhakem", "chief", hash_token(TOKEN)),)
    return Venue("Reliability Hall", tables, matches, referees, players=players)


class HubThread:
    """`with HubThread(tmp) as hub:` a hub serving on hub.url until the block ends.

    `venue` replaces `hall_venue()`; `board=True` wires table T1 to a simulated Boardcast Wire scoreboard on a
    pseudo-terminal (`hub.board`), read through pyserial as a USB board would be, which takes commands."""

    def __init__(
        self,
        data: Path,
        *,
        limits: WebLimits | None = None,
        frames_per_s: float = 0.0,
        venue: Venue | None = None,
        board: bool = False,
    ) -> None:
        self.venue = venue or hall_venue()
        self.pty = open_pty_pair() if board else None
        self.board = TableTennisScoreboard(BOARD_ID, seed=7, speed=0.2) if board else None
        if self.pty is not None:
            t1 = replace(self.venue.tables[0], device=self.pty.slave_path, device_id=BOARD_ID)
            self.venue = replace(self.venue, tables=(t1, *self.venue.tables[1:]))
        self.runtime = HubRuntime(self.venue, data, port=free_port())
        if limits is not None:
            self.runtime.web_limits = limits
        self.frames_per_s = frames_per_s
        self.url = f"http://127.0.0.1:{self.runtime.port}/"
        self.ws_url = f"ws://127.0.0.1:{self.runtime.port}/ws"
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=self._main, name="hub", daemon=True)
        self._error: BaseException | None = None

    def __enter__(self) -> HubThread:
        self.runtime.open()
        self._thread.start()
        deadline = time.monotonic() + 20
        while not (self._loop and self.runtime.ready.is_set()):
            assert self._thread.is_alive(), f"the hub stopped: {self._error!r}"
            assert time.monotonic() < deadline, "the hub did not start"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._loop is not None
        self._loop.call_soon_threadsafe(self.runtime.stop)
        self._thread.join(20)
        if self.pty is not None:
            self.pty.close()

    def _main(self) -> None:
        try:
            asyncio.run(self._run())
        except BaseException as exc:  # reported by __enter__ / the test
            self._error = exc

    async def _run(self) -> None:
        self._loop = asyncio.get_running_loop()
        await self.runtime.run(self._feed)

    async def _feed(self) -> None:
        """Each table's scoreboard reports a growing deuce, so every topic keeps changing (T1's own board,
        when it has one, plays its match)."""
        if self.board is not None and self.pty is not None:
            self._board_task = asyncio.create_task(self.board.run_on_fd(self.pty.master_fd))
        if not self.frames_per_s:
            return
        assert self.runtime.ingest is not None
        sinks = [self.runtime.ingest.sink_for(t) for t in self.venue.tables if t.device is None]
        seq = 0
        while True:
            seq += 1
            for n, sink in enumerate(sinks, start=1):
                report = ScoreboardState(points=((seq + 1) // 2, seq // 2), games=(0, 0))
                sink.observe(Observation(f"board-{n}", 1, seq, time.time(), report, raw=b"\x00raw"))
            await asyncio.sleep(1 / self.frames_per_s)

    def call(self, fn: Any, *args: Any) -> Any:
        """Run `fn(*args)` in the hub's loop and return its result (reads of hub state)."""
        assert self._loop is not None
        done: threading.Event = threading.Event()
        box: list[Any] = []
        self._loop.call_soon_threadsafe(lambda: (box.append(fn(*args)), done.set()))
        assert done.wait(10)
        return box[0]


def request(
    url: str,
    method: str = "GET",
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 10.0,
) -> tuple[int, dict[str, str], bytes]:
    """One HTTP request; the status, headers (lower-case names) and body, whatever the status."""
    req = urllib.request.Request(url, method=method, data=body, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


def post_action(url: str, body: Any, *, token: str | None = TOKEN, **headers: str) -> tuple[int, Any]:
    """A referee action as the console sends it."""
    all_headers = {"Content-Type": "application/json", **headers}
    if token:
        all_headers["Authorization"] = f"Bearer {token}"
    status, _, raw = request(url, "POST", json.dumps(body).encode(), all_headers)
    return status, json.loads(raw)
