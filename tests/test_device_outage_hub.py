"""A board unplugged mid-match, in process with a real server and a simulated board over a pty: the referee
topic and the console's API show one `device.offline` item within the session's silence timeout, however
often the hub retries, and the hub closes it when the board is plugged back and reports."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from boardcast_sim.pty import open_pty_pair
from boardcast_sim.tabletennis import TableTennisScoreboard
from hub.log.eventlog import EventLog
from hub.referee import SYSTEM_ACTOR
from hub.venue import TableConfig
from tests.hubsupport import REFEREE_TOKEN, get_json_as, running_hub, until, venue

SILENCE_TIMEOUT_S = 15.0  # DeviceSession's default: the longest a dead link may take to be noticed


def offline(match: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for a in match["anomalies"] if a["code"] == "device.offline"]


async def referee_match(url: str, match_id: str) -> dict[str, Any]:
    status, matches = await asyncio.to_thread(get_json_as, url + "api/referee/matches", REFEREE_TOKEN)
    assert status == 200
    return next(m for m in matches if m["id"] == match_id)


async def until_referee(url: str, predicate: Any, within: float) -> dict[str, Any]:
    async with asyncio.timeout(within):
        while True:
            match = await referee_match(url, "M-T1")
            if predicate(match):
                return match
            await asyncio.sleep(0.05)


async def test_an_unplugged_board_is_one_console_item_until_it_is_plugged_back(tmp_path: Path) -> None:
    first, second = open_pty_pair(), open_pty_pair()
    port_path = tmp_path / "ttyACM0"
    os.symlink(first.slave_path, port_path)
    v = venue(TableConfig("T1", "tabletennis", str(port_path), "tt-1"))
    board = TableTennisScoreboard("tt-1", seed=21, speed=100, boot_epoch=1)
    async with running_hub(tmp_path, v) as url, asyncio.TaskGroup() as tg:
        playing = tg.create_task(board.run_on_fd(first.master_fd))
        await until(url + "api/matches/M-T1", lambda m: m["status"] == "live" and m["state"]["rallies"] >= 3)
        async with connect(url.replace("http", "ws") + "ws") as ws:
            await ws.send(json.dumps({"subscribe": ["referee"], "token": REFEREE_TOKEN}))
            playing.cancel()
            first.close()  # the cable is pulled mid-match
            pulled = time.monotonic()
            seen = await _offline_on_topic(ws, SILENCE_TIMEOUT_S)
        shown_after = time.monotonic() - pulled
        assert seen["state"] == "open" and seen["severity"] == "warning"
        assert seen["rule"]["title"]["en"] == "The table's device during a match" and seen["rule"]["tr"]
        assert "T1" in seen["message_en"] and "T1" in seen["message_tr"]
        await asyncio.sleep(2.5)  # the hub retries the dead port meanwhile: still one item, seen once
        match = await referee_match(url, "M-T1")
        assert [(a["state"], a["count"]) for a in offline(match)] == [("open", 1)]
        assert "resolve" in offline(match)[0]["offers"]  # a referee may close it by hand as well

        os.replace(_symlink(tmp_path, second.slave_path), port_path)  # plugged back into the same port
        resumed = TableTennisScoreboard("tt-1", seed=22, speed=100, boot_epoch=2, start=board.state)
        playing = tg.create_task(resumed.run_on_fd(second.master_fd))
        match = await until_referee(url, lambda m: offline(m)[0]["state"] == "resolved", 20)
        playing.cancel()
        status, audit = await asyncio.to_thread(get_json_as, url + "api/referee/audit", REFEREE_TOKEN)
    assert status == 200
    [item] = offline(match)
    assert item["handled_by"] == SYSTEM_ACTOR and "reported again" in item["reason"]
    assert shown_after < SILENCE_TIMEOUT_S, shown_after
    closed = [e for e in audit if e["kind"] == "referee.anomaly" and e["match"] == "M-T1"]
    assert [(e["actor"], e["body"]["anomaly"]) for e in closed] == [(SYSTEM_ACTOR, item["id"])]
    second.close()


async def _offline_on_topic(ws: Any, within: float) -> dict[str, Any]:
    """The first `device.offline` item the referee topic brings."""
    async with asyncio.timeout(within):
        while True:
            message = json.loads(await ws.recv())
            matches = message["data"]["matches"] if message.get("snapshot") else [message["data"]]
            for match in matches:
                if match.get("id") == "M-T1" and offline(match):
                    return offline(match)[0]


def _symlink(tmp_path: Path, target: str) -> Path:
    link = tmp_path / "next-link"
    os.symlink(target, link)
    return link


async def test_a_hub_stopped_during_a_live_match_logs_no_outage_of_its_own(tmp_path: Path) -> None:
    pty = open_pty_pair()
    v = venue(TableConfig("T1", "tabletennis", pty.slave_path, "tt-1"))
    board = TableTennisScoreboard("tt-1", seed=23, speed=100, boot_epoch=1)
    async with running_hub(tmp_path, v, lambda: board.run_on_fd(pty.master_fd)) as url:
        await until(url + "api/matches/M-T1", lambda m: m["status"] == "live" and m["state"]["rallies"] >= 3)
    # the hub stopped its device sessions on the way out: that is not the board going away
    eventlog = EventLog(tmp_path / "data" / "events.sqlite3")
    eventlog.open()
    try:
        codes = [e.body.get("code") for e in eventlog.events() if e.kind == "anomaly"]
    finally:
        await eventlog.close()
    assert "device.offline" not in codes
    pty.close()


async def test_a_board_gone_quiet_is_silent_past_the_timeout_and_one_item_until_it_reports(
    tmp_path: Path,
) -> None:
    pty = open_pty_pair()
    v = venue(TableConfig("T1", "tabletennis", pty.slave_path, "tt-1"))
    board = TableTennisScoreboard("tt-1", seed=24, speed=100, boot_epoch=1)
    async with running_hub(tmp_path, v) as url, asyncio.TaskGroup() as tg:
        playing = tg.create_task(board.run_on_fd(pty.master_fd))
        await until(url + "api/matches/M-T1", lambda m: m["status"] == "live" and m["state"]["rallies"] >= 3)
        playing.cancel()  # the board hangs: its cable stays in, nothing more comes
        quiet = time.monotonic()
        devices = await until(
            url + "api/devices", lambda d: d["tables"][0]["status"] == "silent", SILENCE_TIMEOUT_S + 5
        )
        assert time.monotonic() - quiet >= SILENCE_TIMEOUT_S - 1  # not before the session's timeout
        assert "no data from the device for 15 s" in devices["tables"][0]["link_detail"]
        match = await until_referee(url, lambda m: bool(offline(m)), 5)
        assert "no data from the device for 15 s" in offline(match)[0]["message_en"]
        # the session opens the port again: still silent, still the one item
        await until(url + "api/devices", lambda d: d["tables"][0]["link"] == "connected", 5)
        devices = await asyncio.to_thread(get_json_as, url + "api/devices", None)
        assert devices[1]["tables"][0]["status"] == "silent"
        resumed = TableTennisScoreboard("tt-1", seed=25, speed=100, boot_epoch=2, start=board.state)
        playing = tg.create_task(resumed.run_on_fd(pty.master_fd))
        match = await until_referee(url, lambda m: offline(m)[0]["state"] == "resolved", 10)
        await until(url + "api/devices", lambda d: d["tables"][0]["status"] == "connected", 5)
        playing.cancel()
    assert [a["state"] for a in offline(match)] == ["resolved"]
    pty.close()
