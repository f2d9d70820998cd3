"""An umpire's pad scoring a table through a real hub: its taps stored once each, the match as the rules make
it, a second pad refused, and an umpire's token let into its own tables' pads only."""

from __future__ import annotations

import asyncio
import dataclasses
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from hub.log.eventlog import EventLog
from hub.referee.tokens import hash_token
from hub.venue import RefereeConfig, TableConfig
from hub.web.browser import card_base
from hub.web.referee import REFEREE_ROUTES
from tests.hubsupport import REFEREE_TOKEN, get_json_as, post_json, running_hub, venue

UMPIRE_TOKEN = "umpire-token-for-t1-only"


def _venue() -> Any:
    v = venue(TableConfig("T1", "tabletennis"), TableConfig("T2", "tabletennis"))
    umpire = RefereeConfig("Ayşe", "umpire", hash_token(UMPIRE_TOKEN), ("T1",))
    return dataclasses.replace(v, referees=(*v.referees, umpire))


def _taps(sides: list[int], first: int = 1) -> list[dict[str, Any]]:
    return [{"seq": first + i, "kind": "point", "data": {"side": s}} for i, s in enumerate(sides)]


async def _send(url: str, table: str, body: dict[str, Any], token: str = UMPIRE_TOKEN) -> tuple[int, Any]:
    return await asyncio.to_thread(post_json, f"{url}api/pad/{table}", body, token)


async def test_taps_become_points_once_each_and_a_second_pad_only_shows(tmp_path: Path) -> None:
    async with running_hub(tmp_path, _venue()) as url:
        pad = {"pad": "pad-one-1234", "epoch": 7}
        status, answer = await _send(url, "T1", {**pad, "reports": _taps([0] * 11)})
        assert status == 200, answer
        assert answer["taken"] is True and answer["device"]["acked"] == 11
        assert answer["match"]["state"]["points"] == [
            11,
            0,
        ]  # the game closes with the next game's first point
        # the same taps again (an answer lost on the way back) and two more: only the two count
        status, answer = await _send(url, "T1", {**pad, "reports": _taps([0] * 11 + [1, 1])})
        assert status == 200 and answer["device"]["acked"] == 13
        assert answer["match"]["state"]["points"] == [0, 2]
        assert answer["match"]["state"]["game_scores"] == [[11, 0]]

        other = {"pad": "pad-two-5678", "epoch": 1}
        status, answer = await _send(url, "T1", {**other, "reports": _taps([0])})
        assert status == 200 and answer["taken"] is False
        assert "Ayşe" in answer["refusal"]["en"] and "başka bir tabletten" in answer["refusal"]["tr"]
        assert answer["match"]["state"]["points"] == [0, 2]  # nothing scored from the second pad

        # the umpire's token: not another table's pad, not a referee route; no token at all: 401
        status, answer = await _send(url, "T2", {**pad, "reports": _taps([0])})
        assert status == 403 and "T1" in answer["error"]
        for path in ("api/referee/me", "api/referee/matches"):
            status, _ = await asyncio.to_thread(get_json_as, url + path, UMPIRE_TOKEN)
            assert status == 401, path
        status, _ = await asyncio.to_thread(
            post_json, url + "api/matches/M-T1/inputs", {"type": "point", "side": 0}, UMPIRE_TOKEN
        )
        assert status == 401
        status, _ = await _send(url, "T1", {**pad, "reports": []}, token="")
        assert status == 401
        # a referee may use any table's pad
        status, answer = await _send(url, "T2", {"pad": "referee-pad-1", "epoch": 1}, REFEREE_TOKEN)
        assert status == 200 and answer["taken"] is True and answer["user"]["role"] == "chief"

        # what a pad sends is read strictly: a field it does not know, a wrong type, seqs out of order
        for bad, field in (
            ({**pad, "extra": 1}, "extra"),
            ({**pad, "reports": [{"seq": "1", "kind": "point"}]}, "reports.0.seq"),
            ({**pad, "reports": _taps([0]) + _taps([0])}, "seq must grow"),
        ):
            status, answer = await _send(url, "T1", bad)
            assert status == 400 and field in answer["error"], answer

    log = EventLog(tmp_path / "data" / "events.sqlite3")
    log.open()
    try:  # each tap stored once: 13 points from the first pad, nothing from the second
        taps = [e for e in log.events(limit=10_000) if e.device_id == "pad-one-1234"]
        assert sorted(e.seq for e in taps if e.seq is not None) == list(range(1, 14))
        assert not [e for e in log.events(limit=10_000) if e.device_id == "pad-two-5678"]
    finally:
        await log.close()


async def test_each_player_signs_the_final_score_and_a_dispute_calls_a_referee(tmp_path: Path) -> None:
    async with running_hub(tmp_path, _venue()) as url:

        async def sign(table: str, side: int, agree: bool, token: str = UMPIRE_TOKEN) -> tuple[int, Any]:
            return await asyncio.to_thread(
                post_json, f"{url}api/pad/{table}/signoff", {"side": side, "agree": agree}, token
            )

        pad = {"pad": "pad-one-1234", "epoch": 1}
        await _send(url, "T1", {**pad, "reports": _taps([0] * 11)})
        status, answer = await sign("T1", 0, True)
        assert status == 409 and "over" in answer["error"]  # not while the match is played

        _, answer = await _send(url, "T1", {**pad, "reports": _taps([0] * 22, first=12)})
        assert answer["match"]["status"] == "finished" and answer["match"]["state"]["games"] == [3, 0]
        status, answer = await sign("T1", 0, True)
        assert status == 200
        assert answer["match"]["signoffs"] == {
            "score": [3, 0],
            "sides": [{"agree": True, "at": answer["match"]["signoffs"]["sides"][0]["at"]}, None],
            "both": False,
        }
        status, answer = await sign("T1", 1, False)
        assert status == 200 and answer["match"]["signoffs"]["both"] is False
        disputed = [a for a in answer["match"]["anomalies"] if a["code"] == "match.disputed"]
        assert len(disputed) == 1 and disputed[0]["state"] == "open" and "3-0" in disputed[0]["message_en"]
        assert "B" in disputed[0]["message_en"]  # named as the venue names the side
        status, answer = await sign("T1", 1, True)  # heard again: now both agree
        assert answer["match"]["signoffs"]["both"] is True

        _, console = await asyncio.to_thread(get_json_as, url + "api/referee/matches", REFEREE_TOKEN)
        t1 = next(m for m in console if m["id"] == "M-T1")
        assert t1["signoffs"]["both"] is True

        # a referee's corrected result is another score: the players' word was for the old one
        status, _ = await asyncio.to_thread(
            post_json,
            url + "api/matches/M-T1/actions",
            {"action": "correct", "score": [3, 1], "reason": "counted again"},
        )
        assert status == 200, _
        _, console = await asyncio.to_thread(get_json_as, url + "api/referee/matches", REFEREE_TOKEN)
        t1 = next(m for m in console if m["id"] == "M-T1")
        assert t1["signoffs"] == {"score": [3, 1], "sides": [None, None], "both": False}

        status, answer = await sign("T2", 0, True, token=UMPIRE_TOKEN)
        assert status == 403
        for bad in ({"side": 2, "agree": True}, {"side": 0}, {"side": 0, "agree": True, "by": "x"}):
            status, answer = await asyncio.to_thread(post_json, f"{url}api/pad/T1/signoff", bad, UMPIRE_TOKEN)
            assert status in (400, 409), (bad, answer)


async def test_an_umpires_token_opens_no_referee_route(tmp_path: Path) -> None:
    async with running_hub(tmp_path, _venue()) as url:
        for path, _, methods in REFEREE_ROUTES:
            concrete = path.replace("{match_id}", "M-T1").replace("{table_id}", "T1")
            for method in methods:
                request = urllib.request.Request(
                    url + concrete.lstrip("/"), method=method, data=b"{}" if method == "POST" else None
                )
                request.add_header("Authorization", f"Bearer {UMPIRE_TOKEN}")
                try:
                    await asyncio.to_thread(urllib.request.urlopen, request, timeout=5)
                    status = 200
                except urllib.error.HTTPError as error:
                    status = error.code
                assert status == 401, (method, concrete, status)
        status, _ = await asyncio.to_thread(get_json_as, url + "api/tables/cards", UMPIRE_TOKEN)
        assert status == 401
        status, cards = await asyncio.to_thread(get_json_as, url + "api/tables/cards", REFEREE_TOKEN)
        assert status == 200 and [c["table"] for c in cards] == ["T1", "T2"]
        assert cards[0]["url"] == f"{url}pad/T1" and cards[0]["svg"].startswith("<svg")


def test_a_table_card_names_an_address_a_phone_can_reach() -> None:
    assert card_base("http://hall.local:8000/", "http://hub-pc:8000/") == ("http://hall.local:8000/", True)
    assert card_base("http://127.0.0.1:8000/", "http://hub-pc:8000/") == ("http://hub-pc:8000/", True)
    assert card_base("http://localhost:8000/", "http://127.0.0.1:8000/") == ("http://localhost:8000/", False)
