"""A real hub with a simulated DGT board and DGT 3000 on a pseudo-terminal: a game left quiet waits for its
result, a recorded result freezes it while the board is set up again, and the next round's game on that table
starts from the set-up start position and stays frozen after its checkmate."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from boardcast_sim.dgt_board import DgtBoard, games_from_pgn
from boardcast_sim.pty import open_pty_pair
from hub.matches import MatchInfo
from hub.referee.tokens import hash_token
from hub.venue import RefereeConfig, TableConfig, Venue
from tests.conftest import get_json
from tests.hubsupport import REFEREE_TOKEN, get_json_as, post_json, running_hub, until

JOHAN = games_from_pgn((Path(__file__).parent / "fixtures" / "dgt" / "johan.pgn").read_text())[0]
FOOLS_MATE = games_from_pgn('[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n')[0]
JOHAN_MOVES = [m.uci() for m in JOHAN.mainline_moves()]


def public(match: dict[str, Any]) -> dict[str, Any]:
    """What the spectator screens and the PGN are drawn from."""
    return {k: match["state"][k] for k in ("fen", "board_fen", "moves", "clock", "result", "pending")}


def codes(match: dict[str, Any], prefix: str = "chess.") -> list[str]:
    return [a["code"] for a in match["anomalies"] if a["code"].startswith(prefix)]


async def test_a_quiet_game_waits_for_its_result_and_a_result_freezes_it_until_the_next_round(
    tmp_path: Path,
) -> None:
    pty = open_pty_pair()
    venue = Venue(
        "Satranç",
        (TableConfig("C1", "chess", device=f"serial://{pty.slave_path}?protocol=dgt"),),
        (
            MatchInfo("G1", "chess", "C1", 1, ("Johan", "Rival"), clock="300+5", awaiting_result_s=2.0),
            MatchInfo("G2", "chess", "C1", 2, ("Rival", "Johan"), clock="300+5", awaiting_result_s=2.0),
        ),
        (RefereeConfig("Hakem", "chief", hash_token(REFEREE_TOKEN)),),
    )
    # at 60x the 10 game-minutes between the games are 10 s: the arbiter's result comes before the set-up
    board = DgtBoard([JOHAN, FOOLS_MATE], time_control="300+5", speed=60, seed=7, between_games_s=600)
    try:
        async with running_hub(tmp_path, venue, lambda: board.run_on_fd(pty.master_fd)) as url:
            g1 = url + "api/matches/G1"
            # Johan's game is played to its last move; the players stop the clock and the game goes quiet.
            quiet = await until(g1, lambda m: "chess.awaiting_result" in codes(m), within=60)
            assert [m["uci"] for m in quiet["state"]["moves"]] == JOHAN_MOVES
            assert quiet["status"] == "live" and quiet["state"]["awaiting_result"] is True
            assert quiet["state"]["clock"]["running"] is None
            assert codes(quiet) == ["chess.awaiting_result"]  # one item, nothing else

            status, answer = await asyncio.to_thread(  # the arbiter's Result button
                post_json,
                g1 + "/actions",
                {"action": "result", "result": "1-0", "how": "resignation", "reason": "Siyah terk etti"},
            )
            assert status == 200, answer
            ended = await until(g1, lambda m: m["state"]["result"] == "1-0")
            assert ended["state"]["awaiting_result"] is False
            (waited,) = [a for a in ended["anomalies"] if a["code"] == "chess.awaiting_result"]
            assert waited["state"] == "resolved", waited
            frozen, version = public(ended), ended["version"]

            # The board is set up again for the next round: logged on G1 as board activity, never its moves.
            # The set-up start position begins G2, which then plays to checkmate.
            g2 = await until(url + "api/matches/G2", lambda m: m["state"]["result"] is not None, within=60)
            assert [m["uci"] for m in g2["state"]["moves"]] == ["f2f3", "e7e5", "g2g4", "d8h4"]
            assert g2["state"]["result"] == "0-1" and g2["state"]["result_reason"] == "checkmate"
            after = await asyncio.to_thread(get_json, g1)
            assert public(after) == frozen and after["version"] > version
            assert codes(after) == ["chess.awaiting_result"]
            # what the board reported after the result is in G1's log, as the board reported it
            last = min(after["version"], version + 40)
            status, logged = await asyncio.to_thread(
                get_json_as, f"{url}api/referee/matches/G1/events?from={version + 1}&to={last}", REFEREE_TOKEN
            )
            assert status == 200, logged
            boards = [
                e for e in logged["events"] if e["kind"] == "device.report" and "board_fen" in str(e["body"])
            ]
            assert boards and all(e["device_id"] for e in boards)

            # After the mate the players press and stop the clock: G2's clock stays as it stood at the mate.
            mated = public(g2)
            async with asyncio.timeout(30):
                await board.done.wait()
            await asyncio.sleep(1.0)
            final = await asyncio.to_thread(get_json, url + "api/matches/G2")
            assert public(final) == mated
            assert final["state"]["board_fen"] == final["state"]["fen"].split(" ")[0]
            assert codes(final) == [], final["anomalies"]
    finally:
        pty.close()
