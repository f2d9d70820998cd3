"""A hub restart in the middle of a round, with real parts: simulated DGT boards with their DGT 3000 clocks on
pseudo-terminals keep running in this process while `boardcast serve` is SIGKILLed and started again on the
same data directory. After the restart each game's clock is where the clock is, there is no
`chess.time_increased` for a clock that simply went on, and a finished game keeps its final times."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from pathlib import Path

import chess.pgn

from boardcast_sim.dgt_board import DgtBoard, games_from_pgn
from boardcast_sim.pty import PtyPair, open_pty_pair
from tests.conftest import ROOT, free_port
from tests.test_serve import wait_json

GAME = games_from_pgn((Path(__file__).parent / "fixtures" / "dgt" / "johan.pgn").read_text())[0]
MATE = games_from_pgn('[Result "1-0"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n')[0]
CONTROL = "180+10"  # a large increment: quick moves make both clocks go up, as in a blitz finish

VENUE = """\
[venue]
name = "Yeniden Başlatma"

[[tables]]
id = "C1"
sport = "chess"
device = "serial://{live}?protocol=dgt"

[[tables]]
id = "C2"
sport = "chess"
device = "serial://{done}?protocol=dgt"

[[matches]]
id = "LIVE"
table = "C1"
players = ["Ayşe", "Elif"]
time_control = "{control}"

[[matches]]
id = "DONE"
table = "C2"
players = ["Can", "Mehmet"]
time_control = "{control}"
"""


class QuickBoard(DgtBoard):
    """Players who move at once: each press gains more than the move took, so the times go up."""

    def _think_s(self, side: int) -> float:
        return 0.3


def serve(tmp_path: Path, port: int) -> subprocess.Popen[bytes]:
    """`boardcast serve` on the venue and data directory of this test."""
    venue, data = str(tmp_path / "hall.toml"), str(tmp_path / "data")
    return subprocess.Popen(
        [sys.executable, "-m", "hub", "serve", "--venue", venue, "--port", str(port), "--data", data],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def shown_ms(board: DgtBoard) -> tuple[int, int]:
    """What the board's DGT 3000 shows now, in milliseconds."""
    assert board.clock is not None
    left, right = board.clock.shown(board.now())
    return left * 1000, right * 1000


def clock_ms(match: dict) -> tuple[int, int]:
    """The hub's clock of a match, by side."""
    clock = match["state"]["clock"]
    return clock["left_ms"], clock["right_ms"]


def codes(match: dict) -> list[str]:
    return [a["code"] for a in match["anomalies"]]


async def test_a_sigkilled_hub_restarts_with_every_clock_where_the_clock_is(tmp_path: Path) -> None:
    ptys: list[PtyPair] = [open_pty_pair(), open_pty_pair()]
    live = QuickBoard([GAME], time_control=CONTROL, seed=3, between_games_s=10**6, long_serial="2394600701")
    done = QuickBoard([MATE], time_control=CONTROL, seed=4, between_games_s=10**6, long_serial="2394600702")
    venue = VENUE.format(live=ptys[0].slave_path, done=ptys[1].slave_path, control=CONTROL)
    (tmp_path / "hall.toml").write_text(venue, encoding="utf-8")
    port = free_port()
    api = f"http://127.0.0.1:{port}/api/matches/"
    boards = [asyncio.create_task(b.run_on_fd(p.master_fd)) for b, p in zip((live, done), ptys, strict=True)]
    hub = serve(tmp_path, port)
    try:
        ended = await wait_json(api + "DONE", lambda m: m["state"]["result"] == "1-0", within=60)
        await wait_json(api + "LIVE", lambda m: len(m["state"]["moves"]) >= 8, within=60)
        await asyncio.sleep(0.5)
        # a finished game keeps the times it ended with: what the clock shows after the mate (the mating
        # side's press, its increment) is logged, never applied
        final = clock_ms(ended)
        assert clock_ms(await wait_json(api + "DONE", lambda m: True)) == final
        before = clock_ms(await wait_json(api + "LIVE", lambda m: True))
        assert "chess.time_increased" not in codes(ended)

        hub.send_signal(signal.SIGKILL)  # no flush, no clean-up; the boards and clocks run on
        hub.wait(10)
        killed_at, plies_at_kill = time.monotonic(), live.plies_played
        await asyncio.sleep(6.0)
        assert live.plies_played >= plies_at_kill + 2, "the players went on moving while the hub was down"
        went_up = [s for s in (0, 1) if shown_ms(live)[s] > before[s]]
        assert went_up, (
            f"the increments took a clock above {before}: the case that used to read as time added"
        )

        hub = serve(tmp_path, port)
        after = await wait_json(api + "LIVE", lambda m: m["state"]["clock"]["as_of"] > time.time() - 1.5)
        assert time.monotonic() - killed_at < 30
        # within the clock's resolution of the clock's own display (its running side ticks meanwhile)
        now = shown_ms(live)
        assert all(abs(a - b) <= 1000 for a, b in zip(clock_ms(after), now, strict=True)), (
            clock_ms(after),
            now,
        )
        assert "chess.time_increased" not in codes(after), after["anomalies"]
        assert not [c for c in codes(after) if c.startswith("chess.increment")], after["anomalies"]
        await asyncio.sleep(3.0)  # more presses after the restart, read one by one again
        later = await wait_json(api + "LIVE", lambda m: True)
        assert "chess.time_increased" not in codes(later), later["anomalies"]

        kept = await wait_json(api + "DONE", lambda m: True)
        assert kept["state"]["result"] == "1-0" and clock_ms(kept) == final
        assert [m["uci"] for m in kept["state"]["moves"]] == [m.uci() for m in MATE.mainline_moves()]
    finally:
        hub.kill()
        hub.wait(10)
        for task in boards:
            task.cancel()
        await asyncio.gather(*boards, return_exceptions=True)
        for pty in ptys:
            pty.close()


def test_the_mate_game_is_legal() -> None:
    board = MATE.end().board()
    assert board.is_checkmate() and isinstance(MATE, chess.pgn.Game)
