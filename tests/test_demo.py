"""The walking skeleton end to end: a real `boardcast demo` process, real HTTP and WebSocket clients."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from boardcast_sim.demo.run import build_demo_venue
from hub.hall.live import replay_match
from hub.log.eventlog import EventLog
from hub.matches import public_view
from tests.conftest import DemoProcess, get_json, start_demo


def post(url: str, token: str | None = None) -> tuple[int, dict]:
    """POST with an optional bearer token; return the status and JSON body."""
    request = urllib.request.Request(url, method="POST", data=b"")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


async def receive(ws, within: float = 10.0) -> dict:
    async with asyncio.timeout(within):
        return json.loads(await ws.recv())


def wait_for(predicate, timeout: float = 20.0, interval: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError("condition not met in time")


def test_demo_lists_simulated_tables_as_live(demo: DemoProcess) -> None:
    health = get_json(demo.url + "api/health")
    assert health["status"] == "ok"
    matches = get_json(demo.url + "api/matches")
    assert len(matches) == 8
    assert {m["table"] for m in matches} == {"T1", "T2", "T3", "T4"}
    first_round = wait_for(
        lambda: (
            [m for m in get_json(demo.url + "api/matches") if m["round"] == 1 and m["status"] == "live"]
            if all(m["status"] != "scheduled" for m in get_json(demo.url + "api/matches") if m["round"] == 1)
            else None
        )
    )
    assert len(first_round) >= 1
    for match in get_json(demo.url + "api/matches"):
        assert {"id", "sport", "table", "status", "official", "version", "state"} <= match.keys()
        assert match["official"] is False
        assert match["sport"] == "tabletennis"


async def test_websocket_client_sees_scores_change(demo: DemoProcess) -> None:
    async with connect(demo.ws_url) as ws:
        await ws.send(json.dumps({"subscribe": ["venue", "match:TT-R1-T1"]}))
        snapshots = {}
        while len(snapshots) < 2:
            message = await receive(ws)
            if message.get("snapshot"):
                snapshots[message["topic"]] = message
        assert len(snapshots["venue"]["data"]["matches"]) == 8
        first = snapshots["match:TT-R1-T1"]
        assert first["data"]["official"] is False

        seen_versions = [first["version"]]
        scores = set()
        while len(scores) < 3:
            message = await receive(ws)
            assert message["data"]["official"] is False
            if message["topic"] == "match:TT-R1-T1":
                seen_versions.append(message["version"])
                state = message["data"]["state"]
                scores.add((tuple(state["games"]), tuple(state["points"])))
        assert seen_versions == sorted(seen_versions)
        assert len(set(seen_versions)) == len(seen_versions)


async def test_resume_version_skips_snapshot_already_held(demo: DemoProcess) -> None:
    async with connect(demo.ws_url) as ws:
        await ws.send(json.dumps({"subscribe": ["match:TT-R2-T1"]}))
        snapshot = await receive(ws)
        assert snapshot["snapshot"] is True
    async with connect(demo.ws_url) as ws:
        # A client that already holds the latest version of a scheduled match gets nothing new...
        await ws.send(
            json.dumps({"subscribe": ["match:TT-R2-T1"], "resume": {"match:TT-R2-T1": snapshot["version"]}})
        )
        with pytest.raises(TimeoutError):
            await receive(ws, within=0.5)
        # ...and one that holds an older version gets the latest snapshot.
        await ws.send(json.dumps({"subscribe": ["match:TT-R1-T2"], "resume": {"match:TT-R1-T2": 0}}))
        message = await receive(ws)
        assert message["topic"] == "match:TT-R1-T2"


async def test_bad_requests_get_clear_errors_and_the_feed_keeps_working(demo: DemoProcess) -> None:
    async with connect(demo.ws_url) as ws:
        await ws.send("not json")
        assert "not JSON" in (await receive(ws))["error"]
        await ws.send(json.dumps({"subscribe": ["match:nope"]}))
        error = await receive(ws)
        assert error["topic"] == "match:nope" and "unknown topic" in error["error"]
        await ws.send(json.dumps({"subscribe": "venue"}))
        assert "list of topic names" in (await receive(ws))["error"]
        await ws.send(json.dumps({"subscribe": ["venue"]}))
        assert (await receive(ws))["topic"] == "venue"


async def test_oversized_client_message_closes_with_1009(demo: DemoProcess) -> None:
    async with connect(demo.ws_url) as ws:
        await ws.send(json.dumps({"subscribe": ["venue"] * 2000}))
        with pytest.raises(ConnectionClosed):
            while True:
                await receive(ws, within=5)
        assert ws.close_code == 1009
    assert get_json(demo.url + "api/health")["status"] == "ok"


async def test_confirm_needs_a_valid_token_and_makes_the_match_official(tmp_path) -> None:
    demo = start_demo(tmp_path / "data", speed=400, tables=1)
    try:
        url = demo.url + "api/matches/TT-R1-T1/confirm"
        assert post(url)[0] == 401
        assert post(url, "not-the-token")[0] == 401
        finished = wait_for(
            lambda: get_json(demo.url + "api/matches/TT-R1-T1")["status"] == "finished", timeout=40
        )
        assert finished
        async with connect(demo.ws_url) as ws:
            await ws.send(json.dumps({"subscribe": ["match:TT-R1-T1"]}))
            snapshot = await receive(ws)
            assert snapshot["data"]["official"] is False
            status, body = await asyncio.to_thread(post, url, demo.token)
            assert status == 200 and body["official"] is True and body["status"] == "official"
            async with asyncio.timeout(1.0):  # official everywhere within a second
                change = await receive(ws)
                while not change["data"]["official"]:  # a change committed just before the confirmation
                    change = await receive(ws)
            assert change["version"] > snapshot["version"]
        assert post(url, demo.token)[0] == 409  # already official
        assert post(demo.url + "api/matches/TT-R2-T1/confirm", demo.token)[0] == 409  # not finished
        assert post(demo.url + "api/matches/nope/confirm", demo.token)[0] == 404
    finally:
        demo.stop()


async def test_sigkill_loses_nothing_committed_and_restart_resumes(tmp_path) -> None:
    data = tmp_path / "data"
    demo = start_demo(data, speed=60)
    topics = [f"match:TT-R1-T{i}" for i in range(1, 5)]
    last: dict[str, dict] = {}
    async with connect(demo.ws_url) as ws:
        await ws.send(json.dumps({"subscribe": topics}))
        deadline = time.monotonic() + 4
        while time.monotonic() < deadline:
            message = await receive(ws)
            last[message["topic"]] = message
        demo.kill()  # while the boards stream and the log writes
    assert {m["data"]["status"] for m in last.values()} & {"live", "finished"}

    # Offline: every state the hub published is rebuilt exactly from the log alone.
    infos = {m.id: m for m in build_demo_venue(4).venue.matches}
    eventlog = EventLog(data / "events.sqlite3")
    eventlog.open()
    try:
        for topic, message in last.items():
            info = infos[topic.removeprefix("match:")]
            rebuilt, _ = replay_match(info, eventlog, up_to=message["version"])
            assert rebuilt.version == message["version"]
            assert public_view(rebuilt) == message["data"]
            head, _ = replay_match(info, eventlog)
            assert head.version >= message["version"]
    finally:
        await eventlog.close()

    again = start_demo(data, speed=60)
    try:
        health = get_json(again.url + "api/health")
        assert health["log"]["replayed_on_start"] > 0
        for match in get_json(again.url + "api/matches"):
            seen = last.get(f"match:{match['id']}")
            if seen:
                assert match["version"] >= seen["version"]
                assert sum(match["state"]["games"]) >= sum(seen["data"]["state"]["games"])
        # The boards resume where they stood: on the clean tables (T4 errs on purpose) no score was lost,
        # repeated or moved backwards across the kill. (Who serves after a resume depends on the
        # simulator re-deriving the toss from one display, which it can get wrong at a game's edge: that
        # is the simulator's limit, noted in the session notes, not something the hub lost.)
        await asyncio.sleep(1.5)
        integrity = {"tt.score_jump", "tt.score_decrease", "tt.games_mismatch", "tt.illegal_game_end"}
        for match in get_json(again.url + "api/matches"):
            if match["table"] != "T4":
                assert not integrity & {a["code"] for a in match["anomalies"]}, match["anomalies"]
    finally:
        again.stop()


async def test_the_demo_feeds_the_referee_topic_and_exports_a_finished_match(tmp_path) -> None:
    demo = start_demo(tmp_path / "data", speed=400, tables=4)
    try:
        async with connect(demo.ws_url) as ws:
            await ws.send(json.dumps({"subscribe": ["referee"], "token": demo.token}))
            codes: set[str] = set()
            async with asyncio.timeout(40):
                while not codes:
                    message = await receive(ws)
                    for match in message["data"].get("matches", [message["data"]]):
                        codes |= {a["code"] for a in match["anomalies"] if match["table"] == "T4"}
        assert codes & {"tt.wrong_server", "tt.score_jump", "tt.second_timeout"}
        wait_for(lambda: get_json(demo.url + "api/matches/TT-R1-T1")["status"] == "finished", timeout=40)
        card = get_json(demo.url + "api/matches/TT-R1-T1/export/card")
        assert card["official"] is False
        points = [p for game in card["card"]["games"] for p in game["points"]]
        assert points and all("server" in p for p in points)
        with urllib.request.urlopen(demo.url + "api/matches/TT-R1-T1/export/compact", timeout=5) as response:
            compact = response.read().decode().strip()
        games = [tuple(g["score"]) for g in card["card"]["games"] if g["winner"] is not None]
        assert len(games) >= 3 and compact == "/".join(str(b) if a > b else f"-{a}" for a, b in games)
        state = get_json(demo.url + "api/matches/TT-R1-T1")["state"]
        shown = [tuple(g) for g in state["game_scores"]]
        # the board rolls the deciding game into its history with its next display; until then the hub
        # counts that game from the points the board shows (`match_result`), as both exports did
        assert shown == games or (shown == games[:-1] and tuple(state["points"]) == games[-1])
    finally:
        demo.stop()


async def test_a_simulated_board_that_fails_stops_alone_and_says_why(capsys) -> None:
    """A simulator's own error (once: a resumed doubles board's next toss) must not stop the demo's hub."""
    from boardcast_sim.demo.command import board_job

    async def broken(fd: int) -> None:
        await asyncio.sleep(0)
        raise ValueError("first server 'B1' must play for side 0")

    await board_job("/dev/pts/9", broken, 9)()  # returns: the hub's task group is not torn down
    err = capsys.readouterr().err
    assert "Simulated board on /dev/pts/9 stopped: first server 'B1' must play for side 0" in err
    assert "simülasyon tahtası durdu" in err


@pytest.mark.parametrize("tables", [4, 3])
def test_no_one_plays_at_two_tables_of_a_round(tables: int) -> None:
    demo = build_demo_venue(tables, 2, 0, pads=True, token="t")
    try:
        for rnd in {m.round for m in demo.venue.matches}:
            names = [p for m in demo.venue.matches if m.round == rnd for p in m.players]
            assert len(names) == len(set(names)), f"round {rnd}: {sorted(names)}"
    finally:
        for pty in demo.ptys:
            pty.close()


def test_two_tables_without_a_device_are_scored_by_simulated_pads(tmp_path) -> None:
    """A newcomer's demo shows both kinds of table: a table-tennis and a backgammon table scored by pads (the
    script drives the pad's own endpoint), listed as pads on the device panel once they have said something."""
    demo = start_demo(tmp_path / "data", speed=60, tables=1, bg_tables=1, pads=True)
    try:
        assert "two tables scored by umpire pads" in demo.output[0]
        venue = build_demo_venue(1, 1, 0, pads=True, token="t")
        for pty in venue.ptys:
            pty.close()
        tt, bg = (t.id for t in venue.pad_tables)
        assert [t.device for t in venue.pad_tables] == [None, None] and tt == "T3" and bg == "T4"

        def moved() -> bool:
            matches = {m["table"]: m for m in get_json(demo.url + "api/matches") if m["round"] == 1}
            return matches[tt]["state"]["rallies"] >= 5 and len(matches[bg]["state"]["games"]) >= 1

        wait_for(moved, timeout=40)
        request = urllib.request.Request(demo.url + "api/devices")
        request.add_header("Authorization", f"Bearer {demo.token}")
        with urllib.request.urlopen(request, timeout=5) as response:
            devices = json.loads(response.read())["tables"]
        pads = {d["table"]: d for d in devices if d["slot"] == "pad"}
        assert set(pads) == {tt, bg} and all(d["status"] == "connected" for d in pads.values())
    finally:
        demo.stop()
