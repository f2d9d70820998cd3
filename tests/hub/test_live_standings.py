"""Live standings: the last round of a published Swiss (held_swiss_9) played again in a real hub moves the
standings on /api/standings and the `standings` topic as each result arrives, informational until the
referees confirm, and ends equal to the standings of the published file computed offline."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from websockets.asyncio.client import connect

from hub.tournament.live import LiveStandings, results_counted, team_forfeits
from hub.tournament.standings import standings
from hub.tournament.trf import load_trf, parse_trf
from hub.venue import TournamentConfig, load_venue
from tests.conftest import get_json
from tests.hub.test_round_export import HELD, ROUND, blanked, round_games, venue_text
from tests.hubsupport import post_json, running_hub


def hall(tmp_path: Path) -> tuple[Path, list[tuple[int, int, str]]]:
    """The venue with round 9's games, the report file with round 9 paired and not played."""
    text = HELD.read_text(encoding="utf-8")
    original = parse_trf(text, str(HELD))
    games = round_games(original)
    (tmp_path / "event.trf").write_text(blanked(original, text), encoding="utf-8")
    venue_file = tmp_path / "hall.toml"
    venue_file.write_text(venue_text(original, games), encoding="utf-8")
    return venue_file, games


async def standings_now(url: str) -> dict:
    return await asyncio.to_thread(get_json, url + "api/standings")


async def act(url: str, match_id: str, body: dict[str, object]) -> None:
    status, answer = await asyncio.to_thread(post_json, f"{url}api/matches/{match_id}/actions", body)
    assert status == 200, answer


async def next_standings(ws, predicate) -> dict:
    """Read the standings topic until a view satisfies `predicate`."""
    async with asyncio.timeout(15):
        while True:
            message = json.loads(await ws.recv())
            for item in message if isinstance(message, list) else [message]:
                if item.get("topic") == "standings" and predicate(item["data"]):
                    return item["data"]


async def test_standings_follow_the_hall_and_end_as_the_published_file(tmp_path: Path) -> None:
    venue_file, games = hall(tmp_path)
    published = [s.to_json() for s in standings(load_trf(HELD))]
    before = [s.to_json() for s in standings(load_trf(tmp_path / "event.trf"))]
    async with running_hub(tmp_path, load_venue(venue_file)) as url:
        view = await standings_now(url)
        assert view["kind"] == "individual" and view["round"] == ROUND
        assert view["rows"] == before  # round 9 paired, no result yet: the standings after round 8
        assert (view["pending"], view["from_hall"], view["official"]) == (len(games), 0, False)  # to play
        # what is counted is every result the standings stand on: rounds 1-8 from the report file
        filed = load_trf(tmp_path / "event.trf")
        played = sum(1 for p in filed.players.values() for e in p.rounds[: ROUND - 1] if e and e.opponent)
        assert view["counted"] == played // 2 > 0
        assert view["tiebreaks"] == ["BH-1", "BH", "SB", "DE"]
        async with connect(url.replace("http", "ws") + "ws") as ws:
            await ws.send(json.dumps({"subscribe": ["standings"]}))
            first = await next_standings(ws, lambda v: True)
            assert first["rows"] == before
            result = games[0][2]
            how = "agreement" if result == "1/2-1/2" else "resignation"
            await act(url, "G1", {"action": "result", "result": result, "how": how, "reason": "score sheet"})
            one = await next_standings(ws, lambda v: v["from_hall"] == 1)
            assert one["counted"] == view["counted"] + 1
            assert (one["provisional"], one["official"], one["pending"]) == (1, False, len(games) - 1)
            moved = {r["name"]: r["points"] for r in one["rows"]}
            was = {r["name"]: r["points"] for r in before}
            assert sum(moved.values()) == sum(was.values()) + 1  # one game's point, shared as it was scored
            for n, (_, _, result) in enumerate(games[1:], start=2):
                how = "agreement" if result == "1/2-1/2" else "resignation"
                await act(url, f"G{n}", {"action": "result", "result": result, "how": how, "reason": "sheet"})
            done = await next_standings(ws, lambda v: v["from_hall"] == len(games))
            assert done["counted"] == view["counted"] + len(games)
            assert done["rows"] == published  # every point and tie-break as the published file's own
            assert done["official"] is False and done["pending"] == 0
            for n in range(1, len(games) + 1):
                await act(url, f"G{n}", {"action": "confirm"})
            confirmed = await next_standings(ws, lambda v: v["official"])
            assert confirmed["rows"] == published and confirmed["provisional"] == 0
        assert (await standings_now(url))["rows"] == published


async def test_a_venue_without_a_report_file_has_no_standings(tmp_path: Path) -> None:
    venue_file, _ = hall(tmp_path)
    text = venue_file.read_text(encoding="utf-8").replace('[tournament]\ntrf = "event.trf"\n', "")
    venue_file.write_text(text, encoding="utf-8")
    async with running_hub(tmp_path, load_venue(venue_file)) as url:
        for path in ("api/standings", "standings"):
            try:
                await asyncio.to_thread(get_json, url + path)
            except Exception as exc:  # urllib's HTTPError: the status is what counts
                assert getattr(exc, "code", None) == 404, exc
            else:
                raise AssertionError(f"/{path} answered without a report file")


async def test_the_report_file_changed_on_disk_is_shown_and_a_spoilt_one_keeps_the_last_good(
    tmp_path: Path,
) -> None:
    venue_file, _ = hall(tmp_path)
    event = tmp_path / "event.trf"
    async with running_hub(tmp_path, load_venue(venue_file)) as url:
        before = await standings_now(url)
        assert "Alyx" in {r["name"] for r in before["rows"]}
        async with connect(url.replace("http", "ws") + "ws") as ws:
            await ws.send(json.dumps({"subscribe": ["standings"]}))
            await next_standings(ws, lambda v: True)
            event.write_text(event.read_text(encoding="utf-8").replace("Alyx ", "Alix ", 1), encoding="utf-8")
            renamed = await next_standings(
                ws, lambda v: "Alix" in {r["name"] for r in v["rows"]}
            )  # no result
            assert renamed["error"] is None
        event.write_text("", encoding="utf-8")  # the pairing program caught writing it
        spoilt = await standings_now(url)
        assert spoilt["error"].startswith("event.trf:") and "no player records" in spoilt["error"]
        assert spoilt["rows"] == renamed["rows"]  # the last good copy


DEMO_EVENT = Path(__file__).resolve().parents[2] / "boardcast_sim" / "games" / "demo.trf"


def test_counted_is_every_result_the_standings_stand_on_and_a_forfeited_team_match_is_one_line() -> None:
    """The demo league after round 1, round 2's Bursa-Trabzon match forfeited whole in the file: the view
    counts round 1's 16 boards and round 2's 8 forfeits before the hall has any result, and shows the
    forfeited match as one line (the two teams and 8-0), not 16 players' forfeits."""
    view = LiveStandings(TournamentConfig(DEMO_EVENT, board_prize_min_games=2)).view([])
    assert (view["counted"], view["from_hall"]) == (16 + 8, 0)
    assert view["rows"][0]["points"] > 0  # round 1's match points are shown: they are counted
    assert view["round"] == 2
    assert view["team_forfeits"] == [
        {"teams": ["Bursa Gençlik Spor", "Trabzon Satranç Akademi"], "score": [8.0, 0.0], "numbers": [3, 4]}
    ]
    assert view["byes"] == []  # no player of that match listed on their own
    assert view["board_prize_min_games"] == 2
    # one game each so far (round 2 is a forfeit or not played yet): no one ranked on a single game's
    # performance, and a forfeit makes up no game
    assert all(not category["rows"] for category in view["board_prizes"])


def test_a_lone_forfeited_board_stays_a_player_line() -> None:
    text = DEMO_EVENT.read_text(encoding="utf-8")
    # round 2, board 1 of Ankara-İzmir: Mert Aydın (1) forfeits to Barış Yalçın (9); the rest is unplayed
    lines = []
    for line in text.splitlines():
        if line.startswith(("001    1 ", "001    9 ")):
            line = line.rstrip()
            line += " -" if line.startswith("001    1 ") else " +"
        lines.append(line)
    tournament = parse_trf("\n".join(lines) + "\n")
    assert results_counted(tournament) == 16 + 8 + 1
    assert [m["teams"] for m in team_forfeits(tournament, 2)] == [
        ["Bursa Gençlik Spor", "Trabzon Satranç Akademi"]
    ]
