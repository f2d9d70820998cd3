"""A scoreboard that breaks mid-match: the referee switches its table to the umpire's pad (logged, with who and
when), the pad scores on from where the board left the match, the board's later reports are kept and not
applied, and switched back the board is followed again. A real hub, a simulated board over a pty."""

from __future__ import annotations

import asyncio
import dataclasses
import os
from pathlib import Path
from typing import Any

from boardcast_sim.pty import open_pty_pair
from boardcast_sim.tabletennis import TableTennisScoreboard
from hub.log.eventlog import EventLog
from hub.referee.tokens import hash_token
from hub.venue import RefereeConfig, TableConfig
from tests.hubsupport import REFEREE_TOKEN, get_json_as, post_json, running_hub, until, venue

UMPIRE_TOKEN = "umpire-token-for-t1"


async def _match(url: str) -> dict[str, Any]:
    status, match = await asyncio.to_thread(get_json_as, url + "api/matches/M-T1", None)
    assert status == 200
    return match


async def _switch(url: str, by: str) -> tuple[int, Any]:
    return await asyncio.to_thread(
        post_json, url + "api/tables/T1/scored-by", {"by": by, "reason": "the display went dark"}
    )


async def test_a_broken_board_hands_its_table_to_the_pad_and_back(tmp_path: Path) -> None:
    pty = open_pty_pair()
    port = tmp_path / "ttyACM0"
    os.symlink(pty.slave_path, port)
    v = venue(TableConfig("T1", "tabletennis", str(port), "tt-1"))
    v = dataclasses.replace(
        v, referees=(*v.referees, RefereeConfig("Ayşe", "umpire", hash_token(UMPIRE_TOKEN), ("T1",)))
    )
    board = TableTennisScoreboard("tt-1", seed=4, speed=40, boot_epoch=1)
    async with running_hub(tmp_path, v) as url, asyncio.TaskGroup() as tg:
        playing = tg.create_task(board.run_on_fd(pty.master_fd))
        await until(url + "api/matches/M-T1", lambda m: m["status"] == "live" and m["state"]["rallies"] >= 3)

        status, _ = await asyncio.to_thread(
            post_json, url + "api/tables/T1/scored-by", {"by": "umpire"}, UMPIRE_TOKEN
        )
        assert status == 401  # a referee's decision: an umpire's token opens no referee route
        status, answer = await _switch(url, "nobody")
        assert status == 400 and "by" in answer["error"]
        status, answer = await _switch(url, "umpire")
        assert status == 200 and answer == {"table": "T1", "by": "umpire", "match": "M-T1"}
        left = (await _match(url))["state"]
        await asyncio.sleep(1.0)  # the board keeps reporting: none of it is applied
        assert (await _match(url))["state"]["rallies"] == left["rallies"]

        pad = {
            "pad": "pad-of-ayse-1",
            "epoch": 1,
            "reports": [{"seq": 1, "kind": "point", "data": {"side": 0}}],
        }
        status, answer = await asyncio.to_thread(post_json, url + "api/pad/T1", pad, UMPIRE_TOKEN)
        assert status == 200 and answer["taken"] is True
        assert answer["match"]["state"]["rallies"] == left["rallies"] + 1  # on from where the board left it

        _, devices = await asyncio.to_thread(get_json_as, url + "api/devices", REFEREE_TOKEN)
        board_health = next(d for d in devices["tables"] if d["table"] == "T1" and d["slot"] == "")
        assert board_health["set_aside"] is True

        status, _ = await _switch(url, "device")
        assert status == 200
        await until(url + "api/matches/M-T1", lambda m: m["state"]["rallies"] != left["rallies"] + 1, 10)
        playing.cancel()
        _, audit = await asyncio.to_thread(get_json_as, url + "api/referee/audit", REFEREE_TOKEN)
    switches = [e for e in audit if e["kind"] == "referee.scored_by"]
    assert [(e["actor"], e["body"]["by"]) for e in switches] == [("Hakem", "device"), ("Hakem", "umpire")]
    log = EventLog(tmp_path / "data" / "events.sqlite3")
    log.open()
    try:  # what the board said while set aside is in the log, unapplied
        kept = [e for e in log.events(limit=100_000) if e.kind == "device.refused_report"]
        assert kept and all(e.device_id == "tt-1" for e in kept)
    finally:
        await log.close()


async def test_a_restarted_hub_keeps_the_table_with_its_umpire(tmp_path: Path) -> None:
    v = venue(TableConfig("T1", "tabletennis", str(tmp_path / "ttyUSB9"), "tt-1"))
    async with running_hub(tmp_path, v) as url:
        status, _ = await _switch(url, "umpire")
        assert status == 200
    async with running_hub(tmp_path, v) as url:
        _, devices = await asyncio.to_thread(get_json_as, url + "api/devices", REFEREE_TOKEN)
        assert next(d for d in devices["tables"] if d["table"] == "T1")["set_aside"] is True
        status, _ = await _switch(url, "device")
        assert status == 200
    async with running_hub(tmp_path, v) as url:
        _, devices = await asyncio.to_thread(get_json_as, url + "api/devices", REFEREE_TOKEN)
        assert next(d for d in devices["tables"] if d["table"] == "T1")["set_aside"] is False
