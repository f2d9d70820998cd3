"""Real processes for the bus tests: a redis-server, `boardcast serve --bus` hubs, `boardcast edge` edges, and
WebSocket spectators that reconnect and resume as the pages do (tests/test_bus.py, tests/test_nginx_edges.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import redis
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from hub.referee.tokens import hash_token
from tests.conftest import ROOT, free_port, get_json
from tests.hubsupport import post_json

TOKEN = "bus-referee-token"
DURABLE = ("--appendonly", "yes", "--appendfsync", "always", "--save", "")


# -- a real redis-server ----------------------------------------------------------------------------------


@dataclasses.dataclass
class RedisServer:
    """A redis-server process on a free port, restartable on the same port and data directory."""

    port: int
    data: Path
    proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        if not Path(binary).exists():
            pytest.fail(
                "redis-server is not installed: run `bash scripts/test.sh` (it installs the Debian package "
                "'redis-server') or `apt-get install redis-server`"
            )
        # AOF with fsync on every write: a SIGKILLed Redis comes back with every entry it acknowledged
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.data), *DURABLE],
            stdout=(self.data / "redis.log").open("a"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(redis.RedisError):
                if redis.Redis(port=self.port, socket_timeout=1).ping():
                    return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        log = (self.data / "redis.log").read_text(errors="replace")[-2000:]
        pytest.fail(f"redis-server did not start on port {self.port}: {log}")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, socket_timeout=5)


@contextlib.contextmanager
def running_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A real redis-server for the block."""
    data = tmp_path / "redis"
    data.mkdir()
    server = RedisServer(free_port(), data)
    server.start()
    try:
        yield server
    finally:
        if server.proc is not None and server.proc.poll() is None:
            server.kill()


# -- hubs and edges as processes --------------------------------------------------------------------------


def venue_file(path: Path, name: str, prefix: str, venue_lines: str = "") -> Path:
    """A hall of two table-tennis tables, one match each, and a chief referee holding TOKEN; `venue_lines`
    go under [venue] (allowed_hosts, trusted_proxies)."""
    path.write_text(
        f'[venue]\nname = "{name}"\n{venue_lines}\n'
        + "".join(f'[[tables]]\nid = "T{i}"\nsport = "tabletennis"\n\n' for i in (1, 2))
        + "".join(f'[[matches]]\nid = "{prefix}{i}"\ntable = "T{i}"\nbest_of = 3\n\n' for i in (1, 2))
        + f'[[referees]]\nname = "Hakem"\nrole = "chief"\ntoken_sha256 = "{hash_token(TOKEN)}"\n',
        encoding="utf-8",
    )
    return path


@dataclasses.dataclass
class Node:
    """A `boardcast serve --bus` or `boardcast edge` process."""

    args: list[str]
    port: int
    log: Path
    proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self) -> Node:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hub", *self.args, "--port", str(self.port)],
            cwd=ROOT,
            stdout=self.log.open("a"),
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"{self.args[0]} exited: {self.log.read_text()[-3000:]}")
            with contextlib.suppress(OSError):
                get_json(self.url + "api/health", timeout=1)
                return self
            time.sleep(0.05)
        raise AssertionError(f"{self.args[0]} did not serve within 30 s: {self.log.read_text()[-3000:]}")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()


def hub_node(tmp_path: Path, venue: Path, bus: str) -> Node:
    data = tmp_path / f"{venue.stem}-data"
    return Node(
        ["serve", "--venue", str(venue), "--data", str(data), "--bus", bus], free_port(), tmp_path / "hub.log"
    )


def edge_node(tmp_path: Path, venue: Path, bus: str, n: int) -> Node:
    return Node(["edge", "--venue", str(venue), "--bus", bus], free_port(), tmp_path / f"edge{n}.log")


# -- spectators -------------------------------------------------------------------------------------------


class Spectator:
    """A WebSocket client that records every frame and, like the pages, reconnects and resumes."""

    def __init__(self, url: str, topics: list[str], connect_to: str | None = None) -> None:
        self.url = url.replace("http://", "ws://") + "ws"
        self.topics = topics
        self.connect_to = (
            connect_to  # the address to connect to when the URL's host is a name for the Host header
        )
        self.frames: list[dict[str, Any]] = []
        self.latest: dict[str, int] = {}  # topic -> version, sent back as `resume`
        self.reconnects = 0
        self.task: asyncio.Task[None] | None = None

    async def run(self) -> None:
        while True:
            try:
                options: dict[str, Any] = {"host": self.connect_to} if self.connect_to else {}
                async with connect(self.url, open_timeout=2, **options) as ws:
                    await ws.send(orjson.dumps({"subscribe": self.topics, "resume": self.latest}).decode())
                    async for text in ws:
                        frame = orjson.loads(text)
                        assert "error" not in frame, frame
                        self.frames.append(frame)
                        self.latest[frame["topic"]] = frame["version"]
            except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError):
                self.reconnects += 1
                await asyncio.sleep(0.2)

    def last(self, topic: str) -> dict[str, Any] | None:
        return next((f for f in reversed(self.frames) if f["topic"] == topic), None)

    def match_versions(self, topic: str) -> list[int]:
        return [f["version"] for f in self.frames if f["topic"] == topic]

    def venue_versions(self, match_id: str) -> list[int]:
        """The version of one match as the venue wall showed it, frame after frame."""
        out = []
        for f in self.frames:
            if f["topic"] != "venue":
                continue
            entries = f["data"]["matches"] if f.get("snapshot") else [f["data"]]
            out += [e["version"] for e in entries if e.get("id") == match_id]
        return out


@contextlib.asynccontextmanager
async def spectators(*specs: tuple[str, list[str]]) -> AsyncIterator[list[Spectator]]:
    """Spectators of (edge URL, topics), watching for the block."""
    async with watching([Spectator(url, topics) for url, topics in specs]) as clients:
        yield clients


@contextlib.asynccontextmanager
async def watching(clients: list[Spectator]) -> AsyncIterator[list[Spectator]]:
    """The spectators' connect-and-resume loops, running for the block."""
    async with asyncio.TaskGroup() as tg:
        for c in clients:
            c.task = tg.create_task(c.run())
        try:
            yield clients
        finally:
            for c in clients:
                assert c.task is not None
                c.task.cancel()


async def points(hub: Node, match_id: str, n: int, side: int = 0) -> None:
    for _ in range(n):
        status, answer = await asyncio.to_thread(
            post_json, hub.url + f"api/matches/{match_id}/inputs", {"type": "point", "side": side}, TOKEN
        )
        assert status == 200, answer


async def poll(check: Any, within: float = 20.0, what: str = "") -> Any:
    deadline = time.monotonic() + within
    last: Any = None
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, AssertionError, KeyError, TypeError):
            last = await asyncio.to_thread(check)
            if last:
                return last
        await asyncio.sleep(0.1)
    raise AssertionError(f"not within {within} s: {what} (last: {last!r})")


def health(node: Node) -> dict[str, Any]:
    return get_json(node.url + "api/health", timeout=3)
