"""`boardcast serve` as a real process for the attack tests: its own open-files limit, stderr kept in a file,
and the numbers an attacker must not move (RSS, open descriptors, stderr size) read from /proc."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from tests.conftest import ROOT, free_port

MINIMAL_VENUE = """\
[venue]
name = "Saldırı Salonu"

[[tables]]
id = "T1"
sport = "tabletennis"

[[matches]]
id = "M1"
table = "T1"
"""


class ServedHub:
    """`with ServedHub(venue_text, tmp, open_files=(1024, 1024)) as hub:` a hub process serving hub.url."""

    def __init__(self, venue_text: str, tmp: Path, *, open_files: tuple[int, int] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.venue = tmp / "hall.toml"
        self.venue.write_text(venue_text, encoding="utf-8")
        self.data = tmp / "data"
        self.stderr_path = tmp / "stderr.txt"
        self.open_files = open_files
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> ServedHub:
        limit = self.open_files

        def lower_limit() -> None:
            if limit is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, limit)

        with self.stderr_path.open("wb") as stderr:
            self.proc = subprocess.Popen(
                [*self.command(), "--data", str(self.data)],
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                preexec_fn=lower_limit,
            )
        deadline = time.monotonic() + 30
        while True:
            assert self.proc.poll() is None, f"the hub exited: {self.stderr()[-2000:]}"
            try:
                self.get("api/health", timeout=1)
                return self
            except OSError:
                assert time.monotonic() < deadline, "the hub did not start"
                time.sleep(0.1)

    def command(self) -> list[str]:
        """`boardcast serve` on this venue and port."""
        return [sys.executable, "-m", "hub", "serve", "--venue", str(self.venue), "--port", str(self.port)]

    def __exit__(self, *exc: object) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def get(self, path: str, timeout: float = 5.0, token: str | None = None) -> Any:
        """GET a path of the hub and decode its JSON."""
        request = urllib.request.Request(self.url + path)
        if token is not None:
            request.add_header("Authorization", f"Bearer {token}")
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read())

    def stderr(self) -> str:
        """What the hub wrote to stderr so far."""
        return self.stderr_path.read_text(errors="replace")

    def stderr_bytes(self) -> int:
        """The size of the hub's stderr so far."""
        return self.stderr_path.stat().st_size

    def rss_mb(self) -> float:
        """The hub's resident memory now, in MiB."""
        assert self.proc is not None
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise AssertionError("no VmRSS")

    def open_descriptors(self) -> int:
        """How many descriptors the hub holds now."""
        assert self.proc is not None
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))


def silent_sockets(port: int, count: int, source: str = "127.0.0.1") -> list[socket.socket]:
    """Open `count` connections to the hub from `source` that never send a byte."""
    opened = []
    for _ in range(count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind((source, 0))
        sock.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            sock.connect(("127.0.0.1", port))
        opened.append(sock)
    return opened


def closed_by_peer(sock: socket.socket) -> bool:
    """True when the hub has closed this connection (read end of file or reset, after any answer)."""
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return True
    except BlockingIOError:
        return False
    except OSError:  # reset, or the connect never completed because the hub dropped it
        return True


def percentile(values: list[float], share: float) -> float:
    """The value below which `share` of `values` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]
