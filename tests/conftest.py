"""Shared fixtures: a real `boardcast demo` subprocess on a free port, and a WebSocket client for it."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Run one after another on one pytest-xdist worker (scripts/test.sh runs two, `--dist loadfile`): tests whose assertions bound
# time or memory and that start hubs, browsers or benchmarks of their own.
ONE_AT_A_TIME = (
    "tests/reliability/",
    "tests/test_demo_team_match.py",
    "tests/test_benchmarks_",
    "tests/web/test_console_round",
    "tests/hub/test_keepalive.py",
    "tests/hub/test_fanout.py",
    "tests/hub/test_screens_pace.py",
)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist loadfile`, except that the ONE_AT_A_TIME files share one scope: one worker runs them in turn.

    (pytest-xdist's own `loadgroup` cannot be used: it renames nodes in a way pytest 9 no longer reads.)"""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class OneAtATime(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return "one-at-a-time" if path.startswith(ONE_AT_A_TIME) else path

    return OneAtATime(config, log)


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(url: str, timeout: float = 5.0):
    """GET a URL and decode its JSON body."""
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return json.loads(response.read())


@dataclass
class DemoProcess:
    """A running `boardcast demo` and what it printed."""

    proc: subprocess.Popen
    url: str
    data: Path
    port: int
    output: list[str] = field(default_factory=list)
    token: str = ""

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://") + "ws"

    def kill(self) -> None:
        """SIGKILL: no chance to flush or clean up."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> int:
        """Ctrl-C, as a person at the terminal would."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        return self.proc.wait(timeout=15)


def start_demo(
    data: Path,
    *,
    speed: float = 20.0,
    tables: int = 4,
    port: int | None = None,
    bg_tables: int = 0,
    chess_boards: int = 0,
    module: str = "hub",
    pads: bool = False,
    engine: bool = False,
) -> DemoProcess:
    """Start the demo (`python -m module demo …`: a module of the tests runs it with other names) and wait
    until /api/health answers (20 s at most); its two tables scored by simulated pads only with `pads`, the
    chess engine beside its boards only with `engine` (the machine's cores are the tests')."""
    port = port or free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            module,
            "demo",
            "--data",
            str(data),
            "--port",
            str(port),
            "--speed",
            str(speed),
            "--tables",
            str(tables),
            "--bg-tables",
            str(bg_tables),
            "--chess-boards",
            str(chess_boards),
            "--pads" if pads else "--no-pads",
            "--engine" if engine else "--no-engine",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    demo = DemoProcess(proc, f"http://127.0.0.1:{port}/", data, port)
    deadline = time.monotonic() + 20
    os.set_blocking(proc.stdout.fileno(), False)
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if line:
            demo.output.append(line)
            if "Bearer " in line:
                demo.token = line.split("Bearer ")[1].split("'")[0]
        if proc.poll() is not None:
            raise AssertionError(f"demo exited with {proc.returncode}: {''.join(demo.output)}")
        if demo.token:
            try:
                get_json(demo.url + "api/health", timeout=1)
                return demo
            except OSError:
                pass
        time.sleep(0.05)
    proc.kill()
    raise AssertionError(f"demo did not serve /api/health within 20 s: {''.join(demo.output)}")


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[DemoProcess]:
    """A demo hub with four fast simulated tables."""
    running = start_demo(tmp_path / "data")
    yield running
    if running.proc.poll() is None:
        running.proc.kill()
        running.proc.wait()
