"""The referee topic on /ws: refused without a referee token, and every anomaly reaches it as committed."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from websockets.asyncio.client import connect

from boardcast_sim.pty import open_pty_pair
from devices.observations import DeviceHello, ScoreboardState
from devices.wire.messages import encode_report
from hub.venue import TableConfig
from tests.hubsupport import REFEREE_TOKEN, running_hub, venue


async def receive(ws) -> dict:
    async with asyncio.timeout(10):
        return json.loads(await ws.recv())


async def test_referee_topic_needs_a_token_and_streams_anomalies(tmp_path: Path) -> None:
    pty = open_pty_pair()
    v = venue(TableConfig("T1", "tabletennis", pty.slave_path))

    async def board_that_loses_frames() -> None:
        os.set_blocking(pty.master_fd, False)
        while True:
            await asyncio.sleep(0.05)
            try:
                if b"resync" in os.read(pty.master_fd, 4096):
                    break
            except BlockingIOError:
                continue
        hello = DeviceHello("tt-g", "tt-scoreboard", "x", "1", 1, 4)
        os.write(pty.master_fd, encode_report(hello, 0) + encode_report(ScoreboardState((0, 0), (0, 0)), 1))
        await asyncio.sleep(1.0)  # the referee is watching by now
        os.write(pty.master_fd, encode_report(ScoreboardState((1, 0), (0, 0)), 7))  # 2..6 never arrive
        await asyncio.sleep(3600)

    async with running_hub(tmp_path, v, board_that_loses_frames) as url:
        ws_url = url.replace("http", "ws") + "ws"
        async with connect(ws_url) as spectator:
            await spectator.send(json.dumps({"subscribe": ["referee"]}))
            refused = await receive(spectator)
            assert refused["topic"] == "referee" and "referee token" in refused["error"]
            await spectator.send(json.dumps({"subscribe": ["referee"], "token": "guess"}))
            assert "not valid" in (await receive(spectator))["error"]
        async with connect(ws_url) as referee:
            await referee.send(json.dumps({"subscribe": ["referee"], "token": REFEREE_TOKEN}))
            snapshot = await receive(referee)
            assert snapshot["snapshot"] is True and snapshot["data"]["matches"][0]["id"] == "M-T1"
            while True:
                change = await receive(referee)
                if change["data"]["anomalies"]:
                    break
        anomaly = change["data"]["anomalies"][0]
        assert anomaly["code"] == "device.gap"
        assert anomaly["data"]["expected"] == 2 and anomaly["data"]["got"] == 7
        assert anomaly["message_tr"] and anomaly["message_en"]
    pty.close()
