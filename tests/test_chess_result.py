"""The arbiter's `result` action on a real hub: a resignation, an agreement or a forfeit the board cannot see
reaches the game, the team match, the live PGN URLs, the exports and WebSocket spectators within a second, and
a bad request is refused naming its field with nothing logged."""

from __future__ import annotations

import asyncio
import io
import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import chess.pgn
import pytest
import websockets

from boardcast_sim.dgt_board import DgtBoard, games_from_pgn
from boardcast_sim.pty import open_pty_pair
from hub.matches import MatchInfo
from hub.referee.tokens import hash_token
from hub.venue import RefereeConfig, TableConfig, TeamMatchConfig, Venue
from tests.hubsupport import REFEREE_TOKEN, post_json, running_hub, until

# a short game that ends with no mate on the board: Black resigns (a Ruy Lopez, 8 plies)
RESIGNED = games_from_pgn('[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 1-0\n')[0]
PLIES = len(list(RESIGNED.mainline_moves()))


def _venue(board_path: str | None) -> Venue:
    """A two-board team match (board 1 on a DGT board, board 2 never set up), a round-2 game, and a
    table-tennis match for the refusals."""
    device = None if board_path is None else f"serial://{board_path}?protocol=dgt"
    return Venue(
        "Satranç",
        (
            TableConfig("C1", "chess", device=device),
            TableConfig("C2", "chess"),
            TableConfig("T1", "tabletennis"),
        ),
        (
            MatchInfo("G1", "chess", "C1", 1, ("Ayşe", "Elif"), clock="300+3", board=1, team_match="TM"),
            MatchInfo("G2", "chess", "C2", 1, ("Can", "Mehmet"), clock="300+3", board=2, team_match="TM"),
            MatchInfo("G3", "chess", "C2", 2, ("Can", "Deniz"), clock="300+3"),
            MatchInfo("TT", "tabletennis", "T1", 1, ("A", "B"), 5),
        ),
        (RefereeConfig("Hakem", "chief", hash_token(REFEREE_TOKEN)),),
        team_matches=(TeamMatchConfig("TM", 1, ("Ankara", "İzmir")),),
    )


def get_text(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return str(response.read().decode())


def headers_of(text: str) -> dict[str, str]:
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    return dict(game.headers)


async def act(url: str, match_id: str, body: dict[str, Any]) -> tuple[int, dict]:
    return await asyncio.to_thread(post_json, f"{url}api/matches/{match_id}/actions", body)


async def frame_until(ws: Any, topic: str, predicate: Any, within: float = 1.0) -> dict:
    """The first frame of `topic` whose data satisfies `predicate`, within `within` seconds."""
    async with asyncio.timeout(within):
        while True:
            frame = json.loads(await ws.recv())
            if frame.get("topic") == topic and predicate(frame["data"]):
                return dict(frame["data"])


async def test_a_resignation_and_a_forfeit_reach_every_screen_the_pgn_and_the_team_match(
    tmp_path: Path,
) -> None:
    pty = open_pty_pair()
    board = DgtBoard([RESIGNED], time_control="300+3", speed=60, seed=5, between_games_s=10**6)
    try:
        async with running_hub(
            tmp_path, _venue(pty.slave_path), lambda: board.run_on_fd(pty.master_fd)
        ) as url:
            played = await until(
                url + "api/matches/G1", lambda m: len(m["state"]["moves"]) == PLIES, within=60
            )
            assert played["status"] == "live" and played["state"]["result"] is None
            async with websockets.connect(url.replace("http", "ws") + "ws") as ws:
                await ws.send(json.dumps({"subscribe": ["match:G1", "match:G2", "team:TM"]}))
                sent = time.monotonic()
                status, answer = await act(
                    url,
                    "G1",
                    {"action": "result", "result": "1-0", "how": "resignation", "reason": "Siyah terk"},
                )
                assert status == 200, answer
                game = await frame_until(ws, "match:G1", lambda d: d["state"]["result"] == "1-0")
                assert time.monotonic() - sent < 1.0
                assert game["status"] == "finished" and game["state"]["result_reason"] == "resignation"
                assert len(game["state"]["moves"]) == PLIES  # the moves stay as played

                team = await frame_until(ws, "team:TM", lambda d: d["decided"] == 1)
                assert team["boards"][0]["result"] == "1-0" and team["match_points"] is None
                assert team["score"] == [1, 0]  # Ankara has White on board 1

                # board 2 never sat down: a forfeit, which the hub took as the rules' result too
                status, answer = await act(
                    url, "G2", {"action": "result", "result": "0-1", "how": "forfeit", "reason": "gelmedi"}
                )
                assert status == 200, answer
                team = await frame_until(ws, "team:TM", lambda d: d["complete"])
                assert team["decided"] == 2 and team["score"] == [2, 0] and team["match_points"] == [2, 0]

            # the arbiter's note is the referees' own: no spectator path carries it
            public = await asyncio.to_thread(get_text, url + "api/matches/G1")
            assert "Siyah terk" not in public and '"result_reason":"resignation"' in public.replace(" ", "")
            pgn_g1 = await asyncio.to_thread(get_text, url + "pgn/G1.pgn")
            assert "Siyah terk" not in pgn_g1
            assert headers_of(pgn_g1)["Result"] == "1-0" and headers_of(pgn_g1)["Termination"] == "normal"
            assert pgn_g1.rstrip().endswith("1-0")
            pgn_g2 = await asyncio.to_thread(get_text, url + "pgn/G2.pgn")
            assert headers_of(pgn_g2)["Result"] == "0-1" and headers_of(pgn_g2)["Termination"] == "forfeit"
            round_text = await asyncio.to_thread(get_text, url + "pgn/round-1.pgn")
            assert round_text.count('[Termination "') == 2 and round_text.count('[Result "') == 2
            exported = await asyncio.to_thread(get_text, url + "api/matches/G1/export/pgn")
            assert '[Result "1-0"]' in exported and '[Termination "normal"]' in exported

            # the log keeps the action as the rules' input, with the referee as actor
            audit = (await asyncio.to_thread(post_json, url + "api/matches/G1/confirm", {}))[1]
            assert audit["status"] == "official"
            team = await until(url + "api/team-matches/TM", lambda t: t["boards"][0]["official"])
            assert team["match_points"] == [2, 0]
    finally:
        pty.close()


REFUSALS = [
    ("TT", {"action": "result", "result": "1-0", "how": "resignation"}, 400, "action"),
    ("G1", {"action": "result", "result": "1-0", "how": "timeout"}, 400, "how"),
    ("G1", {"action": "result", "result": "1-0"}, 400, "how"),
    ("G1", {"action": "result", "result": "2-0", "how": "agreement"}, 400, "result"),
    ("G1", {"action": "result", "result": "*", "how": "arbiter"}, 400, "result"),
    ("G1", {"action": "result", "result": "1-0", "how": "agreement"}, 400, "how"),
    ("G1", {"action": "result", "result": "1-0", "how": "arbiter", "winner": 0}, 400, "winner"),
    ("G1", {"action": "result", "result": "1-0", "how": "arbiter", "reason": 5}, 400, "reason"),
]


async def test_a_bad_result_action_is_refused_naming_its_field_and_nothing_is_logged(tmp_path: Path) -> None:
    async with running_hub(tmp_path, _venue(None)) as url:
        before = {m: (await until(url + f"api/matches/{m}", lambda _: True))["version"] for m in ("G1", "TT")}
        for match_id, body, code, field in REFUSALS:
            status, answer = await act(url, match_id, body)
            assert (status, answer.get("field")) == (code, field), (body, answer)
            assert " / " in answer["error"], answer  # English / Türkçe
        after = {m: (await until(url + f"api/matches/{m}", lambda _: True))["version"] for m in ("G1", "TT")}
        assert after == before  # nothing logged

        # a locked round: G2 has its result, then a round-2 game on its table starts
        status, _ = await act(url, "G2", {"action": "result", "result": "1/2-1/2", "how": "agreement"})
        assert status == 200
        status, _ = await act(
            url, "G3", {"action": "result", "result": "1-0", "how": "arbiter", "reason": "x"}
        )
        assert status == 200
        locked = await until(url + "api/matches/G2", lambda m: m["locked"])
        status, answer = await act(url, "G2", {"action": "result", "result": "1-0", "how": "arbiter"})
        assert status == 409 and "locked" in answer["error"] and " / " in answer["error"], answer
        assert (await until(url + "api/matches/G2", lambda _: True))["version"] == locked["version"]

        # an official game changes only by a correction or an appeal
        await asyncio.to_thread(post_json, url + "api/matches/G3/confirm", {})
        status, answer = await act(url, "G3", {"action": "result", "result": "0-1", "how": "arbiter"})
        assert status == 409 and "official" in answer["error"], answer


@pytest.mark.parametrize(
    ("how", "result", "termination"),
    [("agreement", "1/2-1/2", "normal"), ("arbiter", "0-1", "adjudication"), ("forfeit", "1-0", "forfeit")],
)
async def test_each_way_a_result_comes_about_is_written_as_relays_expect(
    tmp_path: Path, how: str, result: str, termination: str
) -> None:
    async with running_hub(tmp_path, _venue(None)) as url:
        status, answer = await act(
            url, "G1", {"action": "result", "result": result, "how": how, "reason": "r"}
        )
        assert status == 200 and answer["status"] == "finished", answer
        headers = headers_of(await asyncio.to_thread(get_text, url + "pgn/G1.pgn"))
        assert (headers["Result"], headers["Termination"]) == (result, termination)
        game = await until(url + "api/matches/G1", lambda _: True)
        assert (game["state"]["result"], game["state"]["result_reason"]) == (result, how)


async def test_the_generic_forfeit_action_on_a_chess_game_is_a_pgn_forfeit_too(tmp_path: Path) -> None:
    async with running_hub(tmp_path, _venue(None)) as url:
        status, answer = await act(url, "G2", {"action": "forfeit", "loser": 1, "reason": "gelmedi"})
        assert status == 200 and answer["status"] == "forfeit", answer
        headers = headers_of(await asyncio.to_thread(get_text, url + "pgn/G2.pgn"))
        assert (headers["Result"], headers["Termination"]) == ("1-0", "forfeit")
        team = await until(url + "api/team-matches/TM", lambda t: t["decided"] == 1)
        assert team["boards"][1]["result"] == "1-0"


async def test_a_recorded_result_stands_after_a_hub_restart(tmp_path: Path) -> None:
    body = {"action": "result", "result": "0-1", "how": "arbiter", "reason": "kural ihlali"}
    async with running_hub(tmp_path, _venue(None)) as url:
        status, before = await act(url, "G1", body)
        assert status == 200, before
        pgn = await asyncio.to_thread(get_text, url + "pgn/G1.pgn")
    async with running_hub(tmp_path, _venue(None)) as url:  # the same data directory: replayed from the log
        game = await until(url + "api/matches/G1", lambda _: True)
        assert (game["status"], game["state"]["result"], game["state"]["result_reason"]) == (
            "finished",
            "0-1",
            "arbiter",
        )
        assert game["version"] == before["version"]
        assert await asyncio.to_thread(get_text, url + "pgn/G1.pgn") == pgn
