"""`boardcast serve` and the README's demo command, as an organiser runs them."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from boardcast_sim.pty import open_pty_pair
from boardcast_sim.tabletennis import TableTennisScoreboard
from tests.conftest import ROOT, free_port, get_json

VENUE = """\
[venue]
name = "Test Salonu"

[[tables]]
id = "T1"
sport = "tabletennis"
device = "serial://{missing}"

[[tables]]
id = "T2"
sport = "tabletennis"
device = "serial://{pty}"
device_id = "tt-2"

[[matches]]
id = "M1"
table = "T1"

[[matches]]
id = "M2"
table = "T2"
players = ["Ayşe", "Elif"]
"""


def serve_venue(tmp_path: Path, missing: Path, pty: str, port: int, **popen: object) -> subprocess.Popen[str]:
    """`boardcast serve` on `VENUE` (T1 on a port that may be missing, T2 on a pseudo-terminal)."""
    venue = tmp_path / "hall.toml"
    venue.write_text(VENUE.format(missing=missing, pty=pty), encoding="utf-8")
    return subprocess.Popen(
        [sys.executable, "-m", "hub", "serve", "--venue", str(venue), "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        **popen,  # type: ignore[call-overload]
    )


def running(pid: int) -> bool:
    """A process exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"


async def wait_json(url: str, predicate, within: float = 20.0):
    deadline = time.monotonic() + within
    last = None
    while time.monotonic() < deadline:
        try:
            last = await asyncio.to_thread(get_json, url, 2)
            if predicate(last):
                return last
        except OSError:
            pass
        await asyncio.sleep(0.1)
    raise AssertionError(f"{url} never satisfied the condition; last answer: {last}")


async def test_a_missing_port_is_reported_and_retried_while_the_other_table_runs(tmp_path: Path) -> None:
    pty = open_pty_pair()
    missing = tmp_path / "ttyUSB-unplugged"
    port = free_port()
    proc = serve_venue(tmp_path, missing, pty.slave_path, port)
    board = TableTennisScoreboard("tt-2", seed=3, speed=50)
    url = f"http://127.0.0.1:{port}/"
    try:
        async with asyncio.TaskGroup() as tg:
            playing = tg.create_task(board.run_on_fd(pty.master_fd))
            await wait_json(
                url + "api/matches/M2", lambda m: m["status"] == "live" and m["state"]["points"] != [0, 0]
            )
            devices = await wait_json(
                url + "api/devices",
                lambda ds: any(
                    d["table"] == "T1" and "does not exist" in d["link_detail"] for d in ds["tables"]
                ),
            )
            by_table = {d["table"]: d for d in devices["tables"]}
            assert by_table["T1"]["link"] in ("disconnected", "connecting")
            assert str(missing) in by_table["T1"]["link_detail"]
            assert by_table["T2"]["link"] == "connected" and by_table["T2"]["device_id"] == "tt-2"
            assert get_json(url + "api/matches/M1")["status"] == "scheduled"

            # Plug the device in at the configured path: the retry finds it.
            os.symlink(pty.slave_path, missing)
            plugged = await wait_json(
                url + "api/devices",
                lambda ds: any(d["table"] == "T1" and d["link"] == "connected" for d in ds["tables"]),
                45,
            )
            assert plugged
            playing.cancel()
    finally:
        proc.send_signal(signal.SIGINT)
        output = proc.communicate(timeout=15)[0]
        pty.close()
    assert proc.returncode == 0, output
    assert "Test Salonu" in output and "Stopped" in output


def test_a_port_in_use_is_one_clear_message_and_exit_1(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "hub", "demo", "--data", str(tmp_path / "d"), "--port", str(port)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "Traceback" not in result.stderr


async def test_the_readme_demo_command_serves_live_tables(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        ["bash", "scripts/demo.sh", "--port", str(port), "--data", str(tmp_path / "data"), "--speed", "20"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        url = f"http://127.0.0.1:{port}/"
        started = time.monotonic()
        await wait_json(url + "api/health", lambda h: h["status"] == "ok", within=60)
        pads = (
            "T15",
            "T16",
        )  # a table-tennis and a backgammon table with no device, scored by simulated pads

        def live_on(ms: list[dict], tables: bool) -> list[str]:
            return [m["sport"] for m in ms if m["status"] == "live" and (m["table"] in pads) == tables]

        matches = await wait_json(
            url + "api/matches",
            lambda ms: (
                sum(sport != "chess" for sport in live_on(ms, False)) == 6
                and all(m["status"] != "scheduled" for m in ms if m["sport"] == "chess")
                and sorted(live_on(ms, True)) == ["backgammon", "tabletennis"]
            ),
        )
        assert time.monotonic() - started < 60
        # four table-tennis and two backgammon tables, two rounds each; a chess team match on eight boards; a
        # table-tennis and a backgammon table scored by pads, two rounds each
        assert len(matches) == 24
        live = live_on(matches, False)
        assert live.count("tabletennis") == 4 and live.count("backgammon") == 2
        assert sum(m["sport"] == "chess" for m in matches) == 8
        devices = await wait_json(url + "api/devices", lambda d: len(d["tables"]) == 16)  # and the two pads
        # every simulated device speaks its protocol cleanly: the demo's faults are rule faults, not garbage
        assert {t["table"]: t["frame_errors"] for t in devices["tables"] if t["frame_errors"]} == {}
    finally:
        proc.send_signal(signal.SIGINT)
        output = proc.communicate(timeout=15)[0]
    assert proc.returncode == 0, output
    assert "Referee token / Hakem anahtarı:" in output


async def test_the_log_writer_killed_while_serving_is_started_again_and_ctrl_c_stops_both(
    tmp_path: Path,
) -> None:
    pty = open_pty_pair()
    port = free_port()
    # its own process group, as a terminal gives it: Ctrl-C reaches every process in it
    proc = serve_venue(tmp_path, tmp_path / "absent", pty.slave_path, port, start_new_session=True)
    board = TableTennisScoreboard("tt-2", seed=5, speed=50)
    url = f"http://127.0.0.1:{port}/"
    try:
        async with asyncio.TaskGroup() as tg:
            playing = tg.create_task(board.run_on_fd(pty.master_fd))
            before = await wait_json(url + "api/matches/M2", lambda m: m["version"] >= 3)
            health = await wait_json(url + "api/health", lambda h: h["log"].get("writer", {}).get("pid"))
            writer = health["log"]["writer"]["pid"]
            os.kill(writer, signal.SIGKILL)
            # the hall keeps taking the board's rallies: each committed by a writer started again
            await wait_json(url + "api/matches/M2", lambda m: m["version"] >= before["version"] + 5)
            health = get_json(url + "api/health")
            assert health["log"]["writer"]["starts"] == 2
            assert health["log"]["writer"]["exits"] == [-signal.SIGKILL]
            second = health["log"]["writer"]["pid"]
            assert second != writer
            playing.cancel()
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        output = proc.communicate(timeout=15)[0]
        pty.close()
    assert proc.returncode == 0, output
    assert "Stopped" in output
    assert not running(second), "the writer process outlived the hub"


async def test_sigterm_as_systemd_sends_it_stops_cleanly_and_keeps_every_accepted_report(
    tmp_path: Path,
) -> None:
    pty = open_pty_pair()
    port = free_port()
    # systemd's default stop: SIGTERM to every process of the service (KillMode=control-group)
    proc = serve_venue(tmp_path, tmp_path / "absent", pty.slave_path, port, start_new_session=True)
    board = TableTennisScoreboard("tt-2", seed=7, speed=50)
    url = f"http://127.0.0.1:{port}/"
    try:
        async with asyncio.TaskGroup() as tg:
            playing = tg.create_task(board.run_on_fd(pty.master_fd))
            served = await wait_json(url + "api/matches/M2", lambda m: m["version"] >= 6)
            os.killpg(proc.pid, signal.SIGTERM)  # while the board is still reporting
            output = await asyncio.to_thread(lambda: proc.communicate(timeout=15)[0])
            playing.cancel()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        pty.close()
    assert proc.returncode == 0, output
    assert "Stopped; every accepted event is on disk." in output, output
    # what the hub served before the stop is in the log: started again, it serves that version or later
    again = serve_venue(tmp_path, tmp_path / "absent", pty.slave_path, port)
    try:
        await wait_json(url + "api/matches/M2", lambda m: m["version"] >= served["version"])
    finally:
        again.send_signal(signal.SIGINT)
        again.communicate(timeout=15)
