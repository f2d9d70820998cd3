"""Crash safety: SIGKILL a real hub fifty times under heavy ingest and referee actions, and restart it each time.

After every kill, offline: every frame and every referee action the hub acknowledged is in the log exactly
once, and replaying the log up to the last state the hub served gives exactly that state. After every
restart: the hub serves exactly what the log replays to. A torn database is refused at start, with the
file named, and nothing is served.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

import pytest

from hub.hall.live import replay_match
from hub.log.eventlog import EventLog, EventLogError, unpack
from hub.log.writer import wait_for_writers
from hub.server.app import HubRuntime
from tests.conftest import ROOT, free_port
from tests.reliability import crashhub
from tests.reliability.conftest import Tried

KILLS = 50


def _ledger(path: Path) -> list[list[str]]:
    """The complete lines of the child's ledger (a kill may tear the last one)."""
    text = path.read_text() if path.exists() else ""
    lines = text.split("\n")[:-1]  # whatever follows the last newline was cut by the kill
    return [line.split() for line in lines]


def _post_penalty(url: str, reason: str) -> bool:
    """One referee action over HTTP; True only if the hub answered 200 (acknowledged)."""
    body = {"action": "penalty", "side": 0, "penalty": "warning", "reason": reason}
    request = urllib.request.Request(url, method="POST", data=json.dumps(body).encode())
    request.add_header("Authorization", f"Bearer {crashhub.TOKEN}")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False  # killed mid-request: not acknowledged, so the log may or may not hold it


class Zygote:
    """The process that forks hubs (see `crashhub`)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.reliability.crashhub"],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def fork(self, data: Path, ledger: Path) -> Child:
        port = free_port()
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{data} {port} {ledger}\n")
        self.proc.stdin.flush()
        return Child(int(self.proc.stdout.readline()), port, ledger)

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(10)


class Child:
    """One hub process forked by the zygote, and its ledger."""

    def __init__(self, pid: int, port: int, ledger: Path) -> None:
        self.pid, self.port, self.ledger = pid, port, ledger

    def alive(self) -> bool:
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        return True

    def wait_ready(self, within: float = 30.0) -> list[list[str]]:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            lines = _ledger(self.ledger)
            if ["READY"] in lines:
                return lines
            assert self.alive(), "the hub exited before it served"
            time.sleep(0.01)
        raise AssertionError("the hub did not start within 30 s")

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)  # no flush, no clean-up
        deadline = time.monotonic() + 10
        while self.alive() and time.monotonic() < deadline:
            time.sleep(0.005)


def _check_log(
    data: Path, acked_frames: set, acked_actions: set, served: dict, *, from_scratch: bool = False
) -> dict[str, str]:
    """Offline checks after a kill; returns each match's digest at the log's head.

    Replay starts from the latest snapshot, as the hub's does; `from_scratch` folds every event instead. The
    killed hub's writer process may still be committing the batch it held: the log is read once it is done, as
    a restarting hub reads it."""
    wait_for_writers(data / "events.sqlite3")
    db = sqlite3.connect(data / "events.sqlite3")
    try:
        keys = Counter(
            db.execute("SELECT device_id, boot_epoch, seq FROM events WHERE device_id IS NOT NULL").fetchall()
        )
        missing = [k for k in acked_frames if keys[k] != 1]
        assert not missing, f"acknowledged frames not stored exactly once: {missing[:5]}"
        reasons = Counter(
            unpack(body)["reason"]
            for (body,) in db.execute("SELECT body FROM events WHERE kind = 'referee.penalty'")
        )
        assert all(n == 1 for n in reasons.values()), "a referee action is stored twice"
        assert acked_actions <= reasons.keys(), f"lost actions: {sorted(acked_actions - reasons.keys())[:5]}"
    finally:
        db.close()
    log = EventLog(data / "events.sqlite3")
    log.open()
    venue = crashhub.crash_venue()
    heads = {}
    try:
        snapshots = {} if from_scratch else log.snapshots()
        for info in venue.matches:
            snapshot = snapshots.get(info.id)
            if info.id in served:
                version, seen = served[info.id]
                state, _ = replay_match(info, log, up_to=version, snapshot=snapshot)
                assert state.version == version
                assert crashhub.digest(state, venue) == seen, f"{info.id}@{version} replays differently"
            head, _ = replay_match(info, log, snapshot=snapshot)
            heads[info.id] = f"{head.version} {crashhub.digest(head, venue)}"
    finally:
        log._reader.close()  # opened only to read: no writer was started
    return heads


def test_fifty_sigkills_lose_nothing_acknowledged_and_replay_exactly(tmp_path: Path, tried: Tried) -> None:
    data = tmp_path / "data"
    rng = random.Random(9)
    acked_frames: set[tuple[str, int, int]] = set()
    acked_actions: set[str] = set()
    totals: Counter[str] = Counter()
    zygote = Zygote()
    try:
        heads: dict[str, str] | None = None
        for run in range(KILLS + 1):
            ledger = tmp_path / f"ledger-{run}"
            child = zygote.fork(data, ledger)
            try:
                lines = child.wait_ready()
                replayed = {x[1]: f"{x[2]} {x[3]}" for x in lines if x[0] == "R"}
                if heads is not None:  # the restarted hub serves exactly what the log replays to
                    assert replayed == heads, f"run {run}: restart serves {replayed}, the log holds {heads}"
                    totals["restarts"] += 1
                if run == KILLS:
                    break
                url = f"http://127.0.0.1:{child.port}/api/matches/M-T{run % 4 + 1}/actions"
                timer = threading.Timer(rng.uniform(0.05, 0.4), child.kill)
                timer.start()
                n = 0
                while child.alive():  # referee actions until the kill lands, some of them in flight
                    reason = f"run{run}-{n}"
                    n += 1
                    if _post_penalty(url, reason):
                        acked_actions.add(reason)
                timer.join()
            finally:
                child.kill()
            served: dict[str, tuple[int, str]] = {}
            for line in _ledger(ledger):
                if line[0] == "A":
                    acked_frames.add((line[1], int(line[2]), int(line[3])))
                elif line[0] == "S":
                    served[line[1]] = (int(line[2]), line[3])
            heads = _check_log(data, acked_frames, acked_actions, served)
            totals["kills"] += 1
    finally:
        zygote.close()
    # the snapshots the hub took along the way fold to the same states as every event from the first
    assert _check_log(data, acked_frames, acked_actions, {}, from_scratch=True) == _check_log(
        data, acked_frames, acked_actions, {}
    )
    assert totals["kills"] == KILLS and totals["restarts"] == KILLS
    assert len(acked_actions) >= 10 and len(acked_frames) >= 10 * KILLS  # the kills landed mid-traffic
    tried(
        "SIGKILL of the hub during heavy ingest and referee actions, then restart",
        area="crash safety",
        count=KILLS,
        observed=(
            f"{len(acked_frames)} acknowledged device frames and {len(acked_actions)} acknowledged referee "
            f"actions all stored exactly once; replay equals the last served state after every kill; every "
            f"restart served exactly the log's state"
        ),
    )


def _torn(tmp_path: Path, cut: float) -> Path:
    """A log written by the hub, checkpointed, then cut at `cut` of its length."""
    data = tmp_path / f"torn-{cut}"
    data.mkdir()
    path = data / "events.sqlite3"
    db = sqlite3.connect(path)
    db.executescript("PRAGMA journal_mode=WAL;")
    db.close()
    log = EventLog(path)
    log.open()
    log._reader.close()
    db = sqlite3.connect(path, isolation_level=None)
    db.executemany(
        "INSERT INTO events (id, kind, at, device_id, boot_epoch, seq, body) VALUES (?, 'x', 0, 'd', 1, ?, ?)",
        [(i, i, b"\x80" + b"p" * 300) for i in range(1, 2000)],
    )
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    raw = path.read_bytes()
    path.write_bytes(raw[: int(len(raw) * cut)])
    return data


@pytest.mark.parametrize("cut", [0.1, 0.5, 0.93])
def test_a_torn_database_is_refused_at_start_and_nothing_is_served(tmp_path: Path, cut: float, tried) -> None:
    data = _torn(tmp_path, cut)
    port = free_port()
    runtime = HubRuntime(crashhub.crash_venue(), data, port=port)
    with pytest.raises(EventLogError, match=r"events\.sqlite3.*(damaged|not a readable)") as error:
        runtime.open()
    assert "backup" in str(error.value)
    if runtime._socket is not None:
        runtime._socket.close()
    assert runtime.ingest is None  # refused before a match was rebuilt or a device opened
    tried(
        f"event log truncated to {cut:.0%} of its length",
        area="crash safety",
        count=1,
        observed="refused at start, nothing served: " + str(error.value).split(": ", 1)[1].split(". ")[0],
    )


def test_boardcast_refuses_a_torn_log_with_one_clear_message_and_serves_nothing(
    tmp_path: Path, tried
) -> None:
    data = _torn(tmp_path, 0.5)
    port = free_port()
    done = subprocess.run(
        [sys.executable, "-m", "hub", "demo", "--data", str(data), "--port", str(port), "--tables", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "events.sqlite3" in done.stderr and "backup" in done.stderr and "Traceback" not in done.stderr
    with pytest.raises(OSError):  # nothing listens: no page served from a log it cannot trust
        urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2)
    tried(
        "boardcast started on a torn event log",
        area="crash safety",
        count=1,
        observed="exit 1 and one message, port not served: "
        + done.stderr.strip().splitlines()[0].replace(f"{data}/", "").split(". ")[0],
    )
