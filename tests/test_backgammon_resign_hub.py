"""A resignation through the whole hub: a match resumed at a score in the venue, a simulated board on a real
pseudo-terminal, the referee's resignation and acceptance over HTTP, the log replayed to the same state, and
the hub's `.mat` read back by GNU Backgammon."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from pathlib import Path

from boardcast_sim.backgammon import BackgammonBoard, MatchOptions
from boardcast_sim.pty import open_pty_pair
from hub.hall.live import replay_match
from hub.log.eventlog import EventLog
from hub.matches import MatchInfo, public_view
from hub.referee.tokens import hash_token
from hub.venue import RefereeConfig, TableConfig, Venue
from tests.hub.test_backgammon_moves import run_gnubg_python
from tests.hubsupport import REFEREE_TOKEN, get_json_as, post_json, running_hub, until


def _text(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.read().decode()


async def test_a_resignation_recorded_by_the_referee_scores_replays_and_exports(tmp_path: Path) -> None:
    pty = open_pty_pair()
    info = MatchInfo("BG-R", "backgammon", "B1", 1, ("Hakan", "Levent"), length=7, start_score=(3, 5))
    venue = Venue(
        "Tavla",
        (TableConfig("B1", "backgammon", pty.slave_path, "bg-1"),),
        (info,),
        (RefereeConfig("Hakem", "chief", hash_token(REFEREE_TOKEN)),),
    )
    board = BackgammonBoard("bg-1", seed=5, speed=4, options=MatchOptions(length=7))
    async with running_hub(tmp_path, venue, lambda: board.run_on_fd(pty.master_fd)) as url:
        match_url = url + "api/matches/BG-R"
        live = await until(match_url, lambda m: m["state"]["phase"] == "await_roll", within=30)
        assert live["state"]["score"] == {"A": 3, "B": 5} and live["state"]["game"] == 1
        resigner = live["state"]["turn"]
        side = "AB".index(resigner)
        inputs = url + "api/matches/BG-R/inputs"
        status, _ = await asyncio.to_thread(post_json, inputs, {"type": "resign", "side": side, "value": 2})
        assert status == 200
        status, answer = await asyncio.to_thread(post_json, inputs, {"type": "accept", "side": side, "x": 1})
        assert status == 400 and "'x'" in answer["error"]  # an unknown key: refused, nothing logged
        status, _ = await asyncio.to_thread(post_json, inputs, {"type": "accept", "side": 1 - side})
        assert status == 200
        done = await until(match_url, lambda m: len(m["state"]["games"]) == 1)
        game = done["state"]["games"][0]
        cube = game["points"] // 2
        assert game["resigned"] == 2 and game["winner"] == "AB"[1 - side] and game["score_before"] == [3, 5]
        score = {"A": 3, "B": 5}
        score["AB"[1 - side]] += 2 * cube
        assert done["state"]["score"] == score and cube in (1, 2, 4, 8)
        status, matches = await asyncio.to_thread(get_json_as, url + "api/referee/matches", REFEREE_TOKEN)
        shown = [a["body"]["input"] for a in matches[0]["actions"] if a["kind"] == "referee.input"]
        logged = [{k: v for k, v in i.items() if k != "name"} for i in shown]  # the view names the side
        assert logged == [{"type": "resign", "side": side, "value": 2}, {"type": "accept", "side": 1 - side}]
        assert [i["name"] for i in shown] == [
            venue.matches[0].players[side],
            venue.matches[0].players[1 - side],
        ]
        mat = await asyncio.to_thread(_text, url + "api/matches/BG-R/export/mat")
        version = done["version"]

    eventlog = EventLog(tmp_path / "data" / "events.sqlite3")
    eventlog.open()
    try:
        rebuilt, _ = replay_match(info, eventlog, up_to=version)
        done.pop("chances", None)  # the net's opinion of the position: not in the log (tests/test_chances.py)
        done.pop("performance", None)  # the analysis of the play: not in the log either
        assert json.loads(json.dumps(public_view(rebuilt))) == done  # the log alone gives what was served
    finally:
        await eventlog.close()
    pty.close()

    path = tmp_path / "resigned.mat"
    path.write_text(mat + "\n")
    assert " Game 1" in mat and "Hakan : 3" in mat and f"Wins {2 * cube} points" in mat
    script = f"""
    import gnubg
    gnubg.command('import mat {path}')
    g = gnubg.match()['games'][0]['info']
    print('RES', g['score-X'], g['score-O'], g.get('winner'), g.get('points-won'), g.get('resigned', False))
    """
    (line,) = run_gnubg_python(script, tmp_path)
    assert line.split() == ["3", "5", "XO"[1 - side], str(2 * cube), "True"]
