"""A real hub with a Chessnut Air over Bluetooth LE (the real bleak and retry code over the fake radio, a
simulated board's firmware behind it): moves made by hand on the board reach the spectator API."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import chess

from boardcast_sim.ble_fake import FakeRadio
from boardcast_sim.chess_motion import MotionStyle, apply_motions, motions
from boardcast_sim.chessnut import SimulatedChessnut
from hub.matches import MatchInfo
from hub.server.app import HubRuntime
from hub.venue import TableConfig, Venue
from tests.conftest import free_port
from tests.devices.test_ble import connector_for
from tests.devices.test_chessnut import ADDRESS, URL, add_board
from tests.hubsupport import until

MOVES = ["e2e4", "c7c5", "g1f3", "d7d6", "f1b5", "c8d7", "e1g1"]  # a Sicilian with White castling


async def test_moves_made_on_a_chessnut_board_reach_the_match(tmp_path: Path) -> None:
    radio = FakeRadio()
    device = add_board(radio)
    board = SimulatedChessnut(report_every_s=0.02)
    venue = Venue(
        "Chessnut",
        (TableConfig("C1", "chess", device=URL),),
        (MatchInfo("G1", "chess", "C1", 1, ("Ayşe", "Elif")),),
    )
    async with connector_for(radio) as connector:
        runtime = HubRuntime(venue, tmp_path / "data", port=free_port(), ble=connector)
        runtime.open()
        url = f"http://127.0.0.1:{runtime.port}/"
        async with asyncio.TaskGroup() as tg:
            simulated = tg.create_task(board.run(device))
            serving = tg.create_task(runtime.run())
            await runtime.ready.wait()
            devices = await until(url + "api/devices", lambda d: d["tables"][0]["link"] == "connected")
            assert devices["tables"][0]["device_id"] == "chessnut-" + ADDRESS.replace(":", "-")
            game, placement, rng = chess.Board(), chess.BaseBoard(), random.Random(4)
            for uci in MOVES:
                move = chess.Move.from_uci(uci)
                for change in motions(game, move, rng, style=MotionStyle.REALISTIC):
                    placement = apply_motions(placement, [change])
                    board.place(placement.board_fen())
                    await asyncio.sleep(max(change.delay_s, 0.06))  # several reports per square change
                game.push(move)
                await asyncio.sleep(
                    1.2
                )  # no clock on this table: the board settles, then the move is decided
            done = await until(url + "api/matches/G1", lambda m: len(m["state"]["moves"]) == len(MOVES))
            runtime.stop()
            await serving
            simulated.cancel()
    assert [m["uci"] for m in done["state"]["moves"]] == MOVES
    assert done["state"]["moves"][-1]["san"] == "O-O"
    assert [a["code"] for a in done["anomalies"]] == []
