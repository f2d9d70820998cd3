"""The device layer seen from the hub, in process with a real server: unplug and replug, TCP devices with
tokens, identity and protocol refusals the referee sees, the devices topic, and commands."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from websockets.asyncio.client import connect

from boardcast_sim.pty import open_pty_pair
from boardcast_sim.tabletennis import TableTennisScoreboard
from devices.observations import DeviceHello, ScoreboardState
from devices.transports.tcp import token_digest
from devices.wire.messages import encode_report
from hub.venue import TableConfig
from tests.conftest import free_port, get_json
from tests.hubsupport import post_json, running_hub, until, venue


def table(devices: dict, table_id: str) -> dict:
    return next(d for d in devices["tables"] if d["table"] == table_id)


async def test_a_board_unplugged_and_plugged_back_resumes_and_the_reconnect_shows(tmp_path: Path) -> None:
    first, second = open_pty_pair(), open_pty_pair()
    port_path = tmp_path / "ttyACM0"
    os.symlink(first.slave_path, port_path)
    v = venue(TableConfig("T1", "tabletennis", str(port_path), "tt-1"))
    board = TableTennisScoreboard("tt-1", seed=11, speed=100, boot_epoch=1)
    async with running_hub(tmp_path, v) as url, asyncio.TaskGroup() as tg:
        playing = tg.create_task(board.run_on_fd(first.master_fd))
        await until(url + "api/matches/M-T1", lambda m: m["state"]["rallies"] >= 5)
        playing.cancel()
        shown = board.state
        before = await until(url + "api/matches/M-T1", lambda m: m["state"]["points"] == list(shown.points))
        first.close()  # the cable is pulled
        await until(url + "api/devices", lambda d: table(d, "T1")["link"] != "connected")
        os.replace(_symlink(tmp_path, second.slave_path), port_path)  # ...and plugged into the same port
        devices = await until(
            url + "api/devices",
            lambda d: table(d, "T1")["reconnects"] >= 1 and table(d, "T1")["link"] == "connected",
        )
        # The board powers up from the USB port with the score it kept.
        resumed = TableTennisScoreboard("tt-1", seed=12, speed=100, boot_epoch=2, start=board.state)
        playing = tg.create_task(resumed.run_on_fd(second.master_fd))
        after = await until(
            url + "api/matches/M-T1", lambda m: m["state"]["rallies"] > before["state"]["rallies"] + 3
        )
        devices = await asyncio.to_thread(get_json, url + "api/devices")
        playing.cancel()
    assert table(devices, "T1")["boot_epoch"] == 2 and table(devices, "T1")["reconnects"] == 1
    assert [a for a in after["anomalies"] if a["code"].startswith("tt.")] == []
    second.close()


def _symlink(tmp_path: Path, target: str) -> Path:
    link = tmp_path / "next-link"
    os.symlink(target, link)
    return link


async def test_a_tcp_device_with_its_token_plays_and_a_wrong_token_is_refused_and_shown(
    tmp_path: Path,
) -> None:
    gateway = f"tcp://127.0.0.1:{free_port()}"
    v = venue(TableConfig("T1", "tabletennis", gateway, "tt-wifi", token_digest("wifi-secret")))
    board = TableTennisScoreboard("tt-wifi", seed=2, speed=100, token="wifi-secret")
    port = int(gateway.rsplit(":", 1)[1])

    async def device() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        await board.run_on_streams(reader, writer)

    async with running_hub(tmp_path, v, device) as url:
        await until(url + "api/matches/M-T1", lambda m: m["status"] == "live" and m["state"]["rallies"] >= 2)
        intruder = TableTennisScoreboard("tt-wifi", seed=3, speed=100, token="guessed")
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            async with asyncio.timeout(5):
                await intruder.run_on_streams(reader, writer)
        except* (ConnectionError, OSError):
            pass  # the gateway hung up on it, as it should
        devices = await until(url + "api/devices", lambda d: d["refusals"])
        health = await asyncio.to_thread(get_json, url + "api/health")
    assert devices["refusals"][0]["reason"] == "wrong_token"
    assert any(
        a["code"] == "device.refused" and "wrong_token" in a["message_en"] for a in devices["anomalies"]
    )
    assert health["gateways"] == [{"url": gateway, "accepted": 1, "refused": 1}]
    # the clocked collector's counts, and the memory given back after bursts of spectators
    assert set(health["heap"]) == {"young", "full", "longest_pause_ms", "given_back", "returned_mb"}


class HandWrittenDevice:
    """Frames written by hand on a pty master, for devices that misbehave on purpose."""

    def __init__(self, fd: int, hello: DeviceHello) -> None:
        self.fd, self.hello, self.seq = fd, hello, 0

    async def run(self) -> None:
        os.set_blocking(self.fd, False)
        while True:  # answer every resync with HELLO and a state, like a real board
            await asyncio.sleep(0.05)
            try:
                incoming = os.read(self.fd, 4096)
            except BlockingIOError:
                continue
            if b"resync" in incoming:
                for report in (self.hello, ScoreboardState((3, 1), (0, 0))):
                    os.write(self.fd, encode_report(report, self.seq))
                    self.seq += 1


async def test_identity_family_and_protocol_refusals_reach_the_referee_and_other_tables_keep_working(
    tmp_path: Path,
) -> None:
    good, twin, clock, old = (open_pty_pair() for _ in range(4))
    v = venue(
        TableConfig("T1", "tabletennis", good.slave_path),
        TableConfig("T2", "tabletennis", twin.slave_path),
        TableConfig("T3", "tabletennis", clock.slave_path),
        TableConfig("T4", "tabletennis", old.slave_path),
    )
    board = TableTennisScoreboard("tt-1", seed=5, speed=100)
    impostor = HandWrittenDevice(twin.master_fd, DeviceHello("tt-1", "tt-scoreboard", "x", "1", 1, 9))
    chess = HandWrittenDevice(clock.master_fd, DeviceHello("clk-1", "chess-clock", "x", "1", 1, 9))
    future = HandWrittenDevice(old.master_fd, DeviceHello("tt-4", "tt-scoreboard", "x", "9", 2, 9))

    async def impostor_later() -> None:
        await asyncio.sleep(0.5)  # the real tt-1 is connected by then
        await impostor.run()

    jobs = [lambda: board.run_on_fd(good.master_fd), impostor_later, chess.run, future.run]
    async with running_hub(tmp_path, v, *jobs) as url:
        t2 = await until(url + "api/matches/M-T2", lambda m: m["anomalies"])
        t3 = await until(url + "api/matches/M-T3", lambda m: m["anomalies"])
        t4 = await until(url + "api/matches/M-T4", lambda m: m["anomalies"])
        t1 = await until(url + "api/matches/M-T1", lambda m: m["state"]["rallies"] >= 10)
    assert [a["code"] for a in t2["anomalies"]] == ["device.id_conflict"]
    assert "T1" in t2["anomalies"][0]["message_en"]
    assert t2["state"]["points"] == [0, 0] and t2["status"] == "scheduled"  # kept, not applied
    assert [a["code"] for a in t3["anomalies"]] == ["device.wrong_family"]
    said = t3["anomalies"][0]
    assert "plays table tennis" in said["message_en"] and "masa tenisi masası" in said["message_tr"]
    assert "tabletennis" not in said["message_tr"]  # the sport in Turkish, never its internal name
    assert t3["status"] == "scheduled"
    assert [a["code"] for a in t4["anomalies"]] == ["device.unsupported_protocol"]
    assert "protocol 2" in t4["anomalies"][0]["message_en"]
    assert t1["anomalies"] == [] and t1["status"] in ("live", "finished")
    for pty in (good, twin, clock, old):
        pty.close()


async def test_the_devices_topic_streams_health_and_commands_are_acknowledged(tmp_path: Path) -> None:
    pty = open_pty_pair()
    v = venue(TableConfig("T1", "tabletennis", pty.slave_path, "tt-1"))
    board = TableTennisScoreboard("tt-1", seed=5, speed=20)
    async with running_hub(tmp_path, v, lambda: board.run_on_fd(pty.master_fd)) as url:
        async with connect(url.replace("http", "ws") + "ws") as ws:
            await ws.send(json.dumps({"subscribe": ["devices"]}))
            snapshot = json.loads(await ws.recv())
            assert snapshot["topic"] == "devices" and snapshot["data"]["tables"][0]["table"] == "T1"
            async with asyncio.timeout(5):
                while True:
                    change = json.loads(await ws.recv())
                    if change["data"]["frames"] > 0 and change["data"]["link"] == "connected":
                        break
            assert change["data"]["device_id"] == "tt-1" and change["data"]["battery"] == 87
        assert (
            await asyncio.to_thread(
                post_json, url + "api/tables/T1/command", {"cmd": "show_text", "text": "Mola"}, None
            )
        )[0] == 401
        status, ack = await asyncio.to_thread(
            post_json, url + "api/tables/T1/command", {"cmd": "show_text", "text": "Mola"}
        )
        assert status == 200 and ack["ok"] is True
        assert board.shown_text == "Mola"
        status, refused = await asyncio.to_thread(
            post_json, url + "api/tables/T1/command", {"cmd": "self_destruct"}
        )
        assert status == 400 and "unknown command" in refused["error"]
    pty.close()
