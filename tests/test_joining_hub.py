"""Boards that were playing before the hub started, and a hub stopped and started again mid-match: with real
parts (a table-tennis scoreboard, backgammon boards and DGT boards with DGT 3000 clocks on pseudo-terminals), the
hub joins each match where it stands and raises no error; the catch-ups are recorded as `joined` facts."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections import Counter
from pathlib import Path
from typing import Any

from boardcast_sim.backgammon import BackgammonBoard, MatchOptions
from boardcast_sim.dgt_board import DgtBoard, games_from_pgn
from boardcast_sim.pty import open_pty_pair
from boardcast_sim.tabletennis import TableTennisScoreboard
from devices.observations import ScoreboardState
from hub.log.eventlog import unpack
from hub.matches import MatchInfo
from hub.referee.tokens import hash_token
from hub.venue import RefereeConfig, TableConfig, Venue
from tests.conftest import get_json
from tests.hubsupport import REFEREE_TOKEN, running_hub

GAME = games_from_pgn((Path(__file__).parent / "fixtures" / "dgt" / "johan.pgn").read_text())[0]
CONTROL = "900+2"  # an increment too small for the hub to count presses missed from the clock alone


class QuickBoard(DgtBoard):
    """Players who move within two seconds, so a few seconds are a few plies (the clock runs in real time),
    fewer than the board's reconstruction of missed plies reaches."""

    def _think_s(self, side: int) -> float:
        return 1.2


def _venue(bg_paths: list[str], chess_paths: list[str], tt_path: str) -> Venue:
    tables = (
        TableConfig("T1", "tabletennis", tt_path, "tt-1"),
        *(TableConfig(f"B{n}", "backgammon", p, f"bg-{n}") for n, p in enumerate(bg_paths, 1)),
        *(TableConfig(f"C{n}", "chess", f"serial://{p}?protocol=dgt") for n, p in enumerate(chess_paths, 1)),
    )
    matches = (
        MatchInfo("M-T1", "tabletennis", "T1", 1, ("A", "B"), 5),
        *(MatchInfo(f"M-{t.id}", "backgammon", t.id, 1, ("A", "B"), length=25) for t in tables[1:3]),
        *(MatchInfo(f"M-{t.id}", "chess", t.id, 1, ("W", "B"), clock=CONTROL) for t in tables[3:]),
    )
    return Venue("Katılma", tables, matches, (RefereeConfig("Hakem", "chief", hash_token(REFEREE_TOKEN)),))


def _faults(matches: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(match, code, message) of every error, and of every rule's anomaly whatever its severity (the hub's
    own `device.gap` warning says frames went by while it was away, which is so)."""
    return [
        (m["id"], a["code"], a["message_en"])
        for m in matches
        for a in m["anomalies"]
        if a["severity"] == "error" or not a["code"].startswith("device.")
    ]


def _joined_reports(data: Path) -> dict[str, int]:
    """How many device reports the log holds marked as the report the hub joined a match at, by match."""
    db = sqlite3.connect(data / "events.sqlite3")
    try:
        rows = db.execute("SELECT match_id, body FROM events WHERE kind = 'device.report'").fetchall()
    finally:
        db.close()
    return dict(Counter(match for match, body in rows if unpack(body).get("joined") is True))


async def _matches(url: str) -> list[dict[str, Any]]:
    ids = [m["id"] for m in await asyncio.to_thread(get_json, url + "api/matches")]
    return [await asyncio.to_thread(get_json, f"{url}api/matches/{i}") for i in ids]


async def test_a_hub_started_late_and_restarted_mid_match_raises_no_error(tmp_path: Path) -> None:
    bg_ptys, chess_ptys, tt_pty = [open_pty_pair(), open_pty_pair()], [open_pty_pair()], open_pty_pair()
    venue = _venue([p.slave_path for p in bg_ptys], [p.slave_path for p in chess_ptys], tt_pty.slave_path)
    # a scoreboard already in game 2 when it is plugged in, as a hall's is when the hub comes up late
    scoreboard = TableTennisScoreboard(
        "tt-1", seed=3, speed=4, start=ScoreboardState((6, 9), (0, 1), game_scores=((6, 11),))
    )
    bg_boards = [
        BackgammonBoard(f"bg-{n}", seed=40 + n, speed=40, options=MatchOptions(length=25)) for n in (1, 2)
    ]
    chess_board = QuickBoard(
        [GAME],
        time_control=CONTROL,
        seed=5,
        between_games_s=10**6,
        wait_for_host=False,
        long_serial="2394600741",
    )
    devices = [asyncio.create_task(b.run_on_fd(p.master_fd)) for b, p in zip(bg_boards, bg_ptys, strict=True)]
    devices.append(asyncio.create_task(chess_board.run_on_fd(chess_ptys[0].master_fd)))
    devices.append(asyncio.create_task(scoreboard.run_on_fd(tt_pty.master_fd)))
    try:
        async with asyncio.timeout(20):  # the boards play on, the hub not yet there
            while chess_board.plies_played < 1:
                await asyncio.sleep(0.1)
        assert all(len(b.sent) >= 10 for b in bg_boards)
        async with running_hub(tmp_path, venue) as url:
            await asyncio.sleep(5.0)
            first = await _matches(url)
        assert _faults(first) == []
        stopped_at, plies = time.monotonic(), chess_board.plies_played
        async with asyncio.timeout(10):  # the hub is down (Ctrl-C); the games go on
            while chess_board.plies_played < plies + 2:
                await asyncio.sleep(0.1)
        async with running_hub(tmp_path, venue) as url:
            await asyncio.sleep(5.0)
            after = await _matches(url)
        assert time.monotonic() - stopped_at < 20
        assert _faults(after) == []
        assert all(m["status"] in ("live", "finished") for m in after)
        tt = next(m for m in after if m["id"] == "M-T1")  # the board's score, not 0-0 plus a jump
        assert list(scoreboard.state.games) == tt["state"]["games"] and tt["state"]["game_scores"][0] == [
            6,
            11,
        ]
        chess = next(m for m in after if m["id"] == "M-C1")
        # the plies played before each join are read as a gap, the game followed, and nothing is flagged
        assert len(chess["state"]["moves"]) >= plies + 2 and chess["anomalies"] == []
        chess = next(m for m in after if m["id"] == "M-C1")
        assert (
            len(chess["state"]["moves"]) > plies
        )  # the board's missed plies reconstructed, the game followed
        # each start joined every match at the first report it had from its board (a hello that follows the
        # board's first state joins it once more): at least two marked reports a match
        joined = _joined_reports(tmp_path / "data")
        assert set(joined) == {m["id"] for m in after} and min(joined.values()) >= 2, joined
    finally:
        for task in devices:
            task.cancel()
        await asyncio.gather(*devices, return_exceptions=True)
        for pty in (*bg_ptys, *chess_ptys, tt_pty):
            pty.close()
