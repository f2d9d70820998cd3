"""A table with no device, scored by hand through the referee inputs: the rules decide the end, and what they
refuse is a 409 with the reason."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from pathlib import Path
from typing import Any

from hub.hall.live import replay_match
from hub.log.eventlog import EventLog
from hub.matches import public_view
from hub.venue import TableConfig
from tests.hubsupport import post_json, running_hub, venue


async def _get(url: str) -> Any:
    """GET url off the event loop (the hub runs on it)."""
    return await asyncio.to_thread(_read, url)


def _read(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as answer:
        return json.load(answer)


async def _score(url: str, match_id: str, rallies: list[int]) -> dict[str, Any]:
    """Each rally through POST /inputs as a point to its side; the match as the last answer gave it."""
    match: dict[str, Any] = {}
    for side in rallies:
        status, match = await asyncio.to_thread(
            post_json, f"{url}api/matches/{match_id}/inputs", {"type": "point", "side": side}
        )
        assert status == 200, match
    return match


def _games(*winners: int) -> list[int]:
    """Rallies for games won 11-0 by each side in turn."""
    return [w for w in winners for _ in range(11)]


async def test_a_match_scored_by_hand_ends_as_the_points_say(tmp_path: Path) -> None:
    v = venue(TableConfig("T1", "tabletennis"), TableConfig("T2", "tabletennis"))
    async with running_hub(tmp_path, v) as url:
        three_one = await _score(url, "M-T1", _games(0, 1, 0) + [1] * 5 + [0] * 11)
        three_nil = await _score(url, "M-T2", _games(0, 0, 0))
        for match, games, scores in (
            (three_one, [3, 1], [[11, 0], [0, 11], [11, 0], [11, 5]]),
            (three_nil, [3, 0], [[11, 0], [11, 0], [11, 0]]),
        ):
            assert match["status"] == "finished"
            assert match["state"]["winner"] == 0
            assert match["state"]["games"] == games
            assert match["state"]["game_scores"] == scores
        wall = {m["id"]: m for m in (await _get(url + "api/matches"))}
        assert wall["M-T1"]["state"]["games"] == [3, 1]
        assert wall["M-T2"]["state"]["games"] == [3, 0]
        assert (await _get(url + "api/matches/M-T1"))["state"]["games"] == [3, 1]

        status, error = await asyncio.to_thread(
            post_json, url + "api/matches/M-T1/inputs", {"type": "point", "side": 1}
        )
        assert status == 409
        assert "already won by A (3-1)" in error["error"] and "zaten kazanmıştı" in error["error"]
        status, error = await asyncio.to_thread(
            post_json, url + "api/matches/M-T2/inputs", {"type": "timeout", "side": 1}
        )
        assert status == 409 and "time-out" in error["error"] and "mola" in error["error"]
        assert (await _get(url + "api/matches/M-T1"))["state"]["game_scores"][-1] == [11, 5]
    log = EventLog(tmp_path / "data" / "events.sqlite3")
    log.open()
    try:  # what was refused was never logged, and the log folds to what was served
        replayed, _ = replay_match(v.matches[0], log)
        assert replayed.sport_state.winner == 0
        assert public_view(replayed)["state"]["games"] == [3, 1]
        assert sum(1 for e in log.events() if e.kind == "referee.input" and e.match_id == "M-T1") == 49
    finally:
        await log.close()


async def test_undo_takes_back_the_last_point_whoever_won_it(tmp_path: Path) -> None:
    v = venue(TableConfig("T1", "tabletennis"))
    async with running_hub(tmp_path, v) as url:
        inputs = url + "api/matches/M-T1/inputs"
        await _score(url, "M-T1", [0, 1, 1])
        status, match = await asyncio.to_thread(post_json, inputs, {"type": "undo"})
        assert status == 200 and match["state"]["points"] == [1, 1]
        status, match = await asyncio.to_thread(post_json, inputs, {"type": "undo"})
        assert status == 200 and match["state"]["points"] == [1, 0]
        status, match = await asyncio.to_thread(post_json, inputs, {"type": "undo", "side": 0})
        assert status == 200 and match["state"]["points"] == [0, 0]
        # the winning point taken back: the match is live again and the game not counted
        match = await _score(url, "M-T1", _games(0, 0, 0))
        assert match["status"] == "finished" and match["state"]["games"] == [3, 0]
        status, match = await asyncio.to_thread(post_json, inputs, {"type": "undo"})
        assert status == 200
        assert match["state"]["winner"] is None and match["state"]["games"] == [2, 0]
        assert match["status"] == "live"
        assert match["state"]["points"] == [10, 0]
        match = await _score(url, "M-T1", [0])
        assert match["state"]["games"] == [3, 0] and match["state"]["winner"] == 0
        assert match["status"] == "finished"


async def test_the_time_out_shown_ends_with_the_match(tmp_path: Path) -> None:
    v = venue(TableConfig("T1", "tabletennis"))
    async with running_hub(tmp_path, v) as url:
        inputs = url + "api/matches/M-T1/inputs"
        await _score(url, "M-T1", _games(0, 0) + [0] * 10)
        status, match = await asyncio.to_thread(post_json, inputs, {"type": "timeout", "side": 1})
        assert status == 200 and match["state"]["timeout_active"] == 1
        match = await _score(url, "M-T1", [0])
        assert match["state"]["winner"] == 0 and match["state"]["timeout_active"] is None


async def test_a_corrected_result_is_the_state_the_rules_reach(tmp_path: Path) -> None:
    v = venue(TableConfig("T1", "tabletennis"))
    async with running_hub(tmp_path, v) as url:
        await _score(url, "M-T1", _games(0, 1, 0) + [0] * 4)  # the umpire stopped entering at 4-0 in game 4
        status, match = await asyncio.to_thread(
            post_json,
            url + "api/matches/M-T1/actions",
            {"action": "correct", "score": [3, 1], "winner": 0, "reason": "score sheet"},
        )
        assert status == 200, match
        served = await _get(url + "api/matches/M-T1")
        assert served["state"]["games"] == [3, 1] and served["state"]["winner"] == 0
        assert served["result"]["score"] == [3, 1]
    log = EventLog(tmp_path / "data" / "events.sqlite3")
    log.open()
    try:
        replayed, _ = replay_match(v.matches[0], log)
        assert replayed.sport_state.games == (3, 1) and replayed.sport_state.winner == 0
    finally:
        await log.close()
