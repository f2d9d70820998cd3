"""An umpire scoring with two D-SCORE wristbands (through the fake BLE radio and the real bleak code),
with no scoreboard at the table: the hub scores the match from button presses alone."""

from __future__ import annotations

import asyncio
from pathlib import Path

from boardcast_sim.ble_fake import DScoreLayout, FakeRadio
from devices.dscore.session import DSCORE_SERVICE
from devices.transports.ble import BleConnector
from hub.matches import MatchInfo
from hub.server.app import HubRuntime
from hub.venue import TableConfig, Venue
from tests.conftest import free_port
from tests.hubsupport import until

GREEN, RED, UP = b"\x02", b"\x01", b"\x00"
BANDS = {0: "AA:BB:CC:DD:EE:01", 1: "AA:BB:CC:DD:EE:02"}


async def press(band, button: bytes) -> None:
    assert band.notify_value(button)
    await asyncio.sleep(0.4)  # longer than the double-tap window
    assert band.notify_value(UP)
    await asyncio.sleep(0.05)


async def test_two_wristbands_score_a_game_and_an_undo_takes_a_point_back(tmp_path: Path) -> None:
    radio = FakeRadio()
    bands = {
        side: radio.add_device(
            address, f"D-SCORE-RX_{side}", layout=DScoreLayout(), advertised_uuids=(DSCORE_SERVICE,)
        )
        for side, address in BANDS.items()
    }
    urls = tuple(f"ble://{address}?protocol=dscore&side={side}" for side, address in BANDS.items())
    venue = Venue(
        "Bileklik",
        (TableConfig("T1", "tabletennis", wristbands=urls),),
        (MatchInfo("M1", "tabletennis", "T1", 1, ("Ayşe", "Elif"), 3, first_server="A"),),
    )
    connector = BleConnector(
        client_backend=radio.client_backend, scanner_backend=radio.scanner_backend, find_timeout=0.5
    )
    runtime = HubRuntime(venue, tmp_path / "data", port=free_port(), ble=connector)
    runtime.open()
    url = f"http://127.0.0.1:{runtime.port}/"
    async with asyncio.TaskGroup() as tg:
        serving = tg.create_task(runtime.run())
        await runtime.ready.wait()
        devices = await until(
            url + "api/devices", lambda d: all(t["link"] == "connected" for t in d["tables"])
        )
        assert sorted(t["slot"] for t in devices["tables"]) == ["wristband-0", "wristband-1"]
        for _ in range(3):
            await press(bands[0], GREEN)
        await press(bands[1], GREEN)
        await press(bands[0], RED)  # the umpire takes the last point for side 0 back
        match = await until(url + "api/matches/M1", lambda m: m["state"]["points"] == [2, 1])
        for _ in range(9):
            await press(bands[0], GREEN)
        await until(url + "api/matches/M1", lambda m: m["state"]["points"] == [11, 1])
        await press(bands[1], GREEN)  # the first rally of game 2 closes game 1
        match = await until(url + "api/matches/M1", lambda m: m["state"]["games"] == [1, 0])
        runtime.stop()
        await serving
    assert match["state"]["game_scores"] == [[11, 1]]
    assert match["state"]["points"] == [0, 1]
    assert match["status"] == "live"
    assert [a["code"] for a in match["anomalies"]] == []
