"""The edges benchmark's processes beyond the hub: a real `redis-server` and `boardcast edge` processes.

Each is a real process started as an operator would (`redis-server` with its append-only file, `python -m hub
edge --venue FILE --bus URL`), read from outside: Redis's CPU time from its own `INFO cpu`, the stream's
entries from `XINFO STREAM`, an edge's CPU time from /proc (`benchmarks.hubprocess.cpu_seconds`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import redis

from benchmarks.common import HOST, ROOT
from benchmarks.hubprocess import cpu_seconds
from hub.venue import Venue


def free_port() -> int:
    """A free TCP port on the loopback address."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def venue_toml(venue: Venue) -> str:
    """A venue's tables and matches as a venue file, for the edges (they read the venue from a file)."""
    lines = [f'[venue]\nname = "{venue.name}"\n']
    lines += [f'[[tables]]\nid = "{t.id}"\nsport = "{t.sport}"\n' for t in venue.tables]
    lines += [
        f'[[matches]]\nid = "{m.id}"\ntable = "{m.table}"\nround = {m.round}\nbest_of = {m.best_of}\n'
        f'players = ["{m.players[0]}", "{m.players[1]}"]\n'
        for m in venue.matches
    ]
    return "\n".join(lines)


def _pinned(cpus: set[int] | None) -> Callable[[], None] | None:
    """A child's `preexec_fn` pinning it to `cpus` (None: wherever it runs)."""
    return (lambda: os.sched_setaffinity(0, cpus)) if cpus else None


class RedisProcess:
    """A `redis-server` on a free loopback port, with its append-only file (`everysec`) in `data`."""

    def __init__(self, data: Path, *, cpus: set[int] | None = None) -> None:
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        if not Path(binary).exists():
            raise RuntimeError("redis-server is not installed (bash scripts/test.sh installs it)")
        self.port = free_port()
        args = [binary, "--port", str(self.port), "--bind", HOST, "--dir", str(data), "--save", ""]
        args += ["--appendonly", "yes", "--appendfsync", "everysec"]
        log = (data / "redis.log").open("w")
        self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, preexec_fn=_pinned(cpus))
        self.client = redis.Redis(host=HOST, port=self.port, socket_timeout=5)
        deadline = time.monotonic() + 10
        while True:
            with contextlib.suppress(redis.RedisError):
                if self.client.ping():
                    return
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start: {(data / 'redis.log').read_text()[-1000:]}")
            time.sleep(0.05)

    @property
    def url(self) -> str:
        """The bus URL hubs and edges are given."""
        return f"redis://{HOST}:{self.port}/0"

    def cpu_s(self) -> float:
        """Redis's CPU time so far (user + system, every thread), from its own `INFO cpu`."""
        info = self.client.info("cpu")
        return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])

    def entries_added(self, stream: str) -> int:
        """How many entries the hub has added to `stream` (trimming does not lower it)."""
        try:
            return int(self.client.xinfo_stream(stream)["entries-added"])
        except redis.ResponseError:  # no stream yet
            return 0

    def stop(self) -> None:
        """Stop Redis; kill it if it does not stop."""
        self.client.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class EdgeProcess:
    """One `boardcast edge` process on a free port, its output in `log`."""

    def __init__(self, venue_file: Path, bus: str, log: Path, *, cpus: set[int] | None = None) -> None:
        self.port = free_port()
        self.log = log
        args = [sys.executable, "-m", "hub", "edge", "--venue", str(venue_file), "--bus", bus]
        args += ["--host", HOST, "--port", str(self.port)]
        out = log.open("w")
        self.proc = subprocess.Popen(
            args, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, preexec_fn=_pinned(cpus)
        )

    def health(self) -> dict[str, Any]:
        """The edge's /api/health."""
        with urllib.request.urlopen(f"http://{HOST}:{self.port}/api/health", timeout=2) as reply:
            return orjson.loads(reply.read())

    async def serving(self, within: float = 40.0) -> None:
        """Return once the edge serves and its bus link is up; fail with its output if it does not."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"an edge exited: {self.log.read_text()[-2000:]}")
            with contextlib.suppress(OSError, ValueError):
                if (await asyncio.to_thread(self.health))["bus"]["link"] == "connected":
                    return
            await asyncio.sleep(0.1)
        raise RuntimeError(f"an edge did not serve within {within} s: {self.log.read_text()[-2000:]}")

    def pause(self) -> None:
        """Stop the process where it stands (SIGSTOP): it reads nothing until `resume`."""
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """Let a paused edge go on (SIGCONT); it catches up from the last entry it read."""
        self.proc.send_signal(signal.SIGCONT)

    def pin(self, cpus: set[int]) -> None:
        """Let the edge run on `cpus` from now on."""
        os.sched_setaffinity(self.proc.pid, cpus)

    def cpu_s(self) -> float:
        """The edge's CPU time so far, every thread."""
        return sum(ran for ran, _ in cpu_seconds(self.proc.pid).values())

    def user_system_s(self) -> tuple[float, float]:
        """The edge's user and system CPU time so far (/proc/PID/stat, 10 ms ticks)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        tick = os.sysconf("SC_CLK_TCK")
        return int(fields[11]) / tick, int(fields[12]) / tick

    def stop(self) -> None:
        """Stop the edge as systemd does (SIGTERM); kill it if it does not stop."""
        if self.proc.poll() is None:
            self.resume()  # a paused process would hold the signal until continued
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
