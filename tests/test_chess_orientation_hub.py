"""A DGT board set up the other way round, simulated on a real pseudo-terminal and read by a real hub: the game
comes back move for move with no anomaly, as the right way round; the arbiter's orientation input is checked
through the referee API (a bad value: 400 naming the field, nothing logged)."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import chess.pgn

from boardcast_sim.dgt_board import OPERA_GAME, DgtBoard
from boardcast_sim.pty import open_pty_pair
from hub.matches import MatchInfo
from hub.referee.tokens import hash_token
from hub.venue import RefereeConfig, TableConfig, Venue
from tests.hubsupport import REFEREE_TOKEN, post_json, running_hub, until


async def test_a_rotated_dgt_board_on_a_pty_reads_as_the_right_way_round(tmp_path: Path) -> None:
    game = chess.pgn.read_game(io.StringIO(OPERA_GAME))
    assert game is not None
    expected = [m.uci() for m in game.mainline_moves()]
    pty = open_pty_pair()
    board = DgtBoard([game], time_control="900+10", speed=40, seed=3, between_games_s=10**6, rotated=True)
    tables = (TableConfig("C1", "chess", device=f"serial://{pty.slave_path}?protocol=dgt"),)
    matches = (MatchInfo("G1", "chess", "C1", 1, ("Morphy", "Duke"), clock="900+10"),)
    referees = (RefereeConfig("Hakem", "chief", hash_token(REFEREE_TOKEN)),)
    try:
        async with running_hub(
            tmp_path, Venue("Satranç", tables, matches, referees), lambda: board.run_on_fd(pty.master_fd)
        ) as url:
            inputs = url + "api/matches/G1/inputs"
            first = await until(url + "api/matches/G1", lambda m: len(m["state"]["moves"]) >= 1, within=30)
            said = [
                f["data"] for f in first["facts"] if f["kind"] == "board_orientation"
            ]  # the newest 30 kept
            assert [(d["orientation"], d["source"], d["ply"]) for d in said] == [("rotated", "auto", 0)]
            status, error = await asyncio.to_thread(
                post_json, inputs, {"type": "orientation", "orientation": "up"}
            )
            assert status == 400 and '"orientation" must be "auto", "normal" or "rotated"' in error["error"]
            status, error = await asyncio.to_thread(
                post_json, inputs, {"type": "orientation", "orientation": "rotated", "side": 1}
            )
            assert status == 400 and "side" in error["error"]
            done = await until(
                url + "api/matches/G1", lambda m: len(m["state"]["moves"]) >= len(expected), within=90
            )
            assert [m["uci"] for m in done["state"]["moves"]] == expected
            assert done["state"]["result"] == "1-0" and done["state"]["result_reason"] == "checkmate"
            assert [a["code"] for a in done["anomalies"]] == []
            assert done["state"]["moves"][-1]["san"] == "Rd8#"
            # the arbiter pins it: accepted, and the game read so far stays as it is
            status, match = await asyncio.to_thread(
                post_json, inputs, {"type": "orientation", "orientation": "rotated"}
            )
            assert status == 200 and [m["uci"] for m in match["state"]["moves"]] == expected
    finally:
        pty.close()


async def test_plies_played_out_of_reach_are_read_from_the_board_after_the_reconnect(tmp_path: Path) -> None:
    # A rotated board, out of the hub's reach for three plies (a Bluetooth board out of range): the hub
    # reconnects after its silence timeout, reads the board whole, and finds the three plies that give it.
    game = chess.pgn.read_game(io.StringIO(OPERA_GAME))
    assert game is not None
    expected = [m.uci() for m in game.mainline_moves()]
    pty = open_pty_pair()
    board = DgtBoard([game], time_control="900+10", speed=40, seed=5, between_games_s=10**6, rotated=True)
    tables = (TableConfig("C1", "chess", device=f"serial://{pty.slave_path}?protocol=dgt"),)
    matches = (MatchInfo("G1", "chess", "C1", 1, ("Morphy", "Duke"), clock="900+10"),)
    try:
        async with running_hub(
            tmp_path, Venue("Satranç", tables, matches), lambda: board.run_on_fd(pty.master_fd)
        ) as url:
            await until(url + "api/matches/G1", lambda m: len(m["state"]["moves"]) >= 3, within=30)
            board.lose_plies(3)  # from the next ply: 3...Bg4 4.dxe5 Bxf3 or one later, each the only order
            read = await until(url + "api/matches/G1", lambda m: len(m["state"]["moves"]) >= 7, within=60)
            assert board.lost_from is not None and 3 <= board.lost_from <= 5
            gaps = [f["data"] for f in read["facts"] if f["kind"] == "board_gap"]
            assert [(g["ply"], g["moves"]) for g in gaps] == [
                (board.lost_from, expected[board.lost_from : board.lost_from + 3])
            ]
            done = await until(
                url + "api/matches/G1", lambda m: len(m["state"]["moves"]) >= len(expected), within=120
            )
            assert [m["uci"] for m in done["state"]["moves"]] == expected
            codes = [a["code"] for a in done["anomalies"]]
            assert "chess.board_mismatch" not in codes and "chess.move_without_press" not in codes, codes
            lost = done["state"]["moves"][board.lost_from : board.lost_from + 3]
            assert len({m["at"] for m in lost}) == 1  # the three plies entered together, from one board
    finally:
        pty.close()
