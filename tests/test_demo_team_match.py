"""The demo's chess team match finishes: a real `boardcast demo` with eight simulated DGT boards on real
pseudo-terminals, whose games that ended by resignation or agreement get their result from the demo's
arbiter (logged under its name), so the team match reaches match points and can be confirmed; the league's
standings, imported with the round from its report file, move as the boards finish."""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from boardcast_sim.demo.arbiter import DEMO_ARBITER
from boardcast_sim.demo.run import CHESS_GAMES
from boardcast_sim.dgt_board import games_from_pgn
from tests.conftest import DemoProcess, get_json, start_demo
from tests.hubsupport import get_json_as, post_json

GAMES = games_from_pgn(CHESS_GAMES.read_text(encoding="utf-8"))


@pytest.fixture
def chess_demo(tmp_path: Path) -> Iterator[DemoProcess]:
    demo = start_demo(tmp_path / "data", speed=60, tables=1, chess_boards=8)
    yield demo
    demo.stop()


def test_the_demo_team_match_reaches_match_points_with_the_arbiters_results(chess_demo: DemoProcess) -> None:
    url = chess_demo.url
    start = get_json(url + "api/standings")
    assert start["kind"] == "team" and start["round"] == 2 and start["pending"] >= 1
    before = {r["name"]: r for r in start["rows"]}
    assert before["Bursa Gençlik Spor"]["points"] == 2  # won round 2 by forfeit: already in the file
    seen_counts = {start["from_hall"]}
    deadline = time.monotonic() + 150
    while not (team := get_json(url + "api/team-matches/R2-M1"))["complete"]:
        assert time.monotonic() < deadline, f"the team match did not finish: {team['decided']} of 8 decided"
        seen_counts.add(get_json(url + "api/standings")["from_hall"])
        time.sleep(1)
    time.sleep(1.5)  # the standings follow within a second of the last result
    standings = get_json(url + "api/standings")
    assert standings["from_hall"] == 8 and standings["pending"] == 0 and standings["official"] is False
    # every board result the standings stand on: round 1's 16 from the file, round 2's forfeited match, the hall's
    assert standings["counted"] == 16 + 8 + 8
    assert len(seen_counts) >= 3  # they moved board by board, not only at the end
    after = {r["name"]: r for r in standings["rows"]}
    ankara, izmir = after["Ankara Satranç Kulübü"], after["İzmir Satranç İhtisas"]
    points = {"Ankara Satranç Kulübü": team["score"][0], "İzmir Satranç İhtisas": team["score"][1]}
    for name, row in (("Ankara Satranç Kulübü", ankara), ("İzmir Satranç İhtisas", izmir)):
        assert row["tiebreaks"]["GP"] == before[name]["tiebreaks"]["GP"] + points[name]
    assert ankara["points"] + izmir["points"] == before["Ankara Satranç Kulübü"]["points"] * 2 + 2
    prizes = standings["board_prizes"]
    assert [c["boards"] for c in prizes] == [[1, 2, 3, 4], [5], [6], [7], [8]]
    # two games played are needed: the players of the clubs that played round 2 in the hall (the other two
    # clubs' round 2 was a forfeit, no game)
    assert sum(len(c["rows"]) for c in prizes) == 16
    assert all(row["games"] == 2 and row["forfeits"] == 0 for c in prizes for row in c["rows"])
    assert team["decided"] == 8 and team["match_points"] is not None
    assert sorted(team["match_points"]) in ([0, 2], [1, 1])

    # the relay's PGN: the event and city from the report file, the players' ratings from the round import
    pgn = urllib.request.urlopen(url + "pgn/round-2.pgn").read().decode()
    assert pgn.count('[Event "Boardcast Demo Ligi / Demo League"]') == 8 and '[Site "Ankara TUR"]' in pgn
    assert (
        '[White "Mert Aydın"]\n[Black "Barış Yalçın"]' in pgn
        and '[WhiteElo "2386"]\n[BlackElo "2402"]' in pgn
    )

    status, games = get_json_as(url + "api/referee/matches", chess_demo.token)
    assert status == 200
    chess_games = {g["id"]: g for g in games if g["sport"] == "chess"}
    by_arbiter = 0
    for board, original in enumerate(GAMES, start=1):
        game = chess_games[f"R2-M1-B{board}"]
        assert game["status"] == "finished"
        mated = original.end().board().is_checkmate()
        state = get_json(url + f"api/matches/{game['id']}")["state"]
        reason = state["result_reason"]
        if reason in ("resignation", "agreement"):  # the board could not show it: the demo's arbiter said it
            by_arbiter += 1
            assert state["result"] == original.headers["Result"]
            actions = [a for a in game["actions"] if a["kind"] == "referee.input"]
            assert [a["actor"] for a in actions] == [DEMO_ARBITER]
            assert actions[0]["body"]["input"]["how"] == reason
        else:
            assert reason in ("checkmate", "flag_fall"), (board, reason)
            assert not mated or reason == "checkmate"
    # six of the eight real games ended off the board; at speed 60 a long one may lose on time first, since a
    # board's motions (drags that pause, the captured piece taken off first) take real seconds, a minute of
    # its clock each, which the simulated players' thinking does not leave room for
    assert by_arbiter >= 3  # on a loaded 2-core machine a fourth long game may lose on time first

    # confirming makes the team match official, as for any match
    for game_id in chess_games:
        status, answer = post_json(url + f"api/matches/{game_id}/confirm", {}, chess_demo.token)
        assert status == 200, answer
    assert get_json(url + "api/team-matches/R2-M1")["official"] is True
    time.sleep(1.5)
    assert get_json(url + "api/standings")["official"] is True
