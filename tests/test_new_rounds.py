"""A new round while the hub runs: taken from the venue file on the chief referee's request or when the file
changes, shown to spectators at once, refused (nothing changed) when the file touches what is running."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from pathlib import Path

from websockets.asyncio.client import connect

from hub.referee.tokens import hash_token
from hub.venue import load_venue
from tests.conftest import ROOT, get_json
from tests.hubsupport import REFEREE_TOKEN, get_json_as, post_json, running_hub, until

FLOOR_TOKEN = "floor-referee-token"
VENUE = f"""\
[venue]
name = "Tur Salonu"

[[tables]]
id = "T1"
sport = "tabletennis"

[[tables]]
id = "T2"
sport = "tabletennis"

[[matches]]
id = "R1-T1"
table = "T1"
round = 1
players = ["Ayşe", "Elif"]

[[referees]]
name = "Başhakem"
role = "chief"
token_sha256 = "{hash_token(REFEREE_TOKEN)}"

[[referees]]
name = "Masa Hakemi"
role = "referee"
token_sha256 = "{hash_token(FLOOR_TOKEN)}"
"""
ROUND_2 = """
[[matches]]
id = "R2-T1"
table = "T1"
round = 2
players = ["Ayşe", "Deniz"]

[[matches]]
id = "R2-T2"
table = "T2"
round = 2
players = ["Elif", "Sena"]
"""


def hall_file(tmp_path: Path) -> Path:
    path = tmp_path / "hall.toml"
    path.write_text(VENUE, encoding="utf-8")
    return path


async def match_ids(base: str) -> set[str]:
    return {m["id"] for m in await asyncio.to_thread(get_json, base + "api/matches")}


async def match(base: str, match_id: str) -> dict:
    return await asyncio.to_thread(get_json, base + f"api/matches/{match_id}")


async def venue_changes(ws, wanted: set[str]) -> set[str]:
    """Read the venue topic until every wanted match id has been sent."""
    seen: set[str] = set()
    async with asyncio.timeout(10):
        while not wanted <= seen:
            message = json.loads(await ws.recv())
            for item in message if isinstance(message, list) else [message]:
                data = item.get("data") or {}
                seen |= {m["id"] for m in data.get("matches", [])}
                if isinstance(data, dict) and "id" in data:
                    seen.add(data["id"])
    return seen


async def test_the_chief_referee_adds_a_round_and_spectators_see_it_at_once(tmp_path: Path) -> None:
    path = hall_file(tmp_path)
    async with running_hub(tmp_path, load_venue(path)) as base:
        async with connect(base.replace("http", "ws") + "ws") as spectator:
            await spectator.send(json.dumps({"subscribe": ["venue"]}))
            await venue_changes(spectator, {"R1-T1"})
            with path.open("a", encoding="utf-8") as f:
                f.write(ROUND_2)
            status, answer = await asyncio.to_thread(post_json, base + "api/rounds", {})
            assert status == 200, answer
            assert answer == {
                "rounds": [2],
                "matches": ["R2-T1", "R2-T2"],
                "team_matches": [],
                "referees": [],
            }
            assert await venue_changes(spectator, {"R2-T1", "R2-T2"}) >= {"R2-T1", "R2-T2"}
        assert await match_ids(base) == {"R1-T1", "R2-T1", "R2-T2"}
        assert (await match(base, "R2-T2"))["status"] == "scheduled"
        status, again = await asyncio.to_thread(
            post_json, base + "api/rounds", {}
        )  # nothing new: nothing done
        assert (status, again["matches"]) == (200, [])
    async with running_hub(tmp_path, load_venue(path)) as base:  # a restart reads the same file
        assert await match_ids(base) == {"R1-T1", "R2-T1", "R2-T2"}


async def test_a_floor_referee_may_not_add_a_round(tmp_path: Path) -> None:
    path = hall_file(tmp_path)
    async with running_hub(
        tmp_path,
        load_venue(path),
    ) as base:
        with path.open("a", encoding="utf-8") as f:
            f.write(ROUND_2)
        status, answer = await asyncio.to_thread(post_json, base + "api/rounds", {}, FLOOR_TOKEN)
        assert status == 403 and "chief" in answer["error"]
        status, _ = await asyncio.to_thread(post_json, base + "api/rounds", {}, None)
        assert status == 401


async def test_a_file_that_changes_a_running_round_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    path = hall_file(tmp_path)
    async with running_hub(tmp_path, load_venue(path)) as base:
        path.write_text(VENUE.replace('["Ayşe", "Elif"]', '["Ayşe", "Zeynep"]') + ROUND_2, encoding="utf-8")
        status, answer = await asyncio.to_thread(post_json, base + "api/rounds", {})
        assert status == 409
        assert "match R1-T1 changed" in answer["error"]
        assert await match_ids(base) == {"R1-T1"}
        assert (await match(base, "R1-T1"))["players"] == ["Ayşe", "Elif"]
        path.write_text(VENUE + ROUND_2.replace('table = "T2"', 'table = "T9"'), encoding="utf-8")
        status, answer = await asyncio.to_thread(post_json, base + "api/rounds", {})
        assert status == 409
        assert "hall.toml:" in answer["error"] and "T9" in answer["error"]  # the file, line and table
        assert await match_ids(base) == {"R1-T1"}


async def test_the_hub_takes_a_new_round_when_the_file_changes(tmp_path: Path) -> None:
    path = hall_file(tmp_path)
    async with running_hub(tmp_path, load_venue(path)) as base:
        with path.open("a", encoding="utf-8") as f:
            f.write(ROUND_2)
        await until(base + "api/matches", lambda ms: {m["id"] for m in ms} >= {"R2-T1", "R2-T2"}, within=8)


async def test_requests_at_once_take_a_round_once(tmp_path: Path) -> None:
    path = hall_file(tmp_path)
    async with running_hub(tmp_path, load_venue(path)) as base:
        with path.open("a", encoding="utf-8") as f:
            f.write(ROUND_2)
        answers = await asyncio.gather(
            *(asyncio.to_thread(post_json, base + "api/rounds", {}) for _ in range(6))
        )
        assert [status for status, _ in answers] == [200] * 6
        taken = [answer["matches"] for _, answer in answers if answer["matches"]]
        assert taken == [["R2-T1", "R2-T2"]]  # one took it; the others found nothing new
        assert sorted(await match_ids(base)) == ["R1-T1", "R2-T1", "R2-T2"]
    db = sqlite3.connect(tmp_path / "data" / "events.sqlite3")
    try:
        logged = db.execute("SELECT actor FROM events WHERE kind = 'venue.round'").fetchall()
    finally:
        db.close()
    assert logged == [("Başhakem",)]


async def test_a_referee_added_to_the_file_can_act_at_once(tmp_path: Path) -> None:
    path = hall_file(tmp_path)
    async with running_hub(tmp_path, load_venue(path)) as base:
        token = "new-chief-token"
        with path.open("a", encoding="utf-8") as f:
            f.write(
                f'\n[[referees]]\nname = "Yeni Başhakem"\nrole = "chief"\ntoken_sha256 = "{hash_token(token)}"\n'
            )
        status, answer = await asyncio.to_thread(post_json, base + "api/rounds", {})
        assert (status, answer["referees"]) == (200, ["Yeni Başhakem"])
        with path.open("a", encoding="utf-8") as f:
            f.write(ROUND_2)
        status, answer = await asyncio.to_thread(post_json, base + "api/rounds", {}, token)
        assert (status, answer["matches"]) == (200, ["R2-T1", "R2-T2"])


async def test_a_tie_break_that_does_not_fit_the_event_is_refused(tmp_path: Path) -> None:
    path = hall_file(tmp_path)
    shutil.copy(ROOT / "tests" / "fixtures" / "trf" / "held_swiss_5.trf", tmp_path / "event.trf")
    async with running_hub(tmp_path, load_venue(path)) as base:
        path.write_text(
            path.read_text(encoding="utf-8")
            + '\n[tournament]\ntrf = "event.trf"\ntiebreaks = ["BC", "BH"]\n',
            encoding="utf-8",
        )
        status, answer = await asyncio.to_thread(post_json, base + "api/rounds", {})
        assert status == 409 and "tournament.tiebreaks" in answer["error"] and "BC" in answer["error"]
        assert (await asyncio.to_thread(get_json_as, base + "api/standings", None))[0] == 404  # not taken
