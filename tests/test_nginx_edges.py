"""nginx in front of two spectator edges, with the configuration shipped in deploy/nginx/boardcast.conf.

A real redis-server, a hall hub (`boardcast serve --bus`), two `boardcast edge` processes and nginx (Debian's
package, run as this user on a free loopback port) serve spectators who connect only to nginx. One edge is
killed with SIGKILL: its spectators reconnect through nginx to the other and resume, no version goes back and
every one ends on the hub's latest state. The pages and reads come through under the hall's name, and a
client's forged X-Forwarded-For does not pass. The shipped file is used as it is, its three ports replaced,
inside the few lines Debian's nginx.conf puts around a site (with this user's log and temporary paths).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import http.client
import os
import pwd
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus

from hub.feed.protocol import PING_SPREAD, server_config
from tests.bussupport import (
    TOKEN,
    Node,
    RedisServer,
    Spectator,
    edge_node,
    health,
    hub_node,
    points,
    poll,
    running_redis,
    venue_file,
    watching,
)
from tests.conftest import ROOT, free_port, get_json

SITE = ROOT / "deploy" / "nginx" / "boardcast.conf"
SHIPPED_LISTEN = "listen 80;"
SHIPPED_EDGES = ("127.0.0.1:8101", "127.0.0.1:8102")
NAME = "boardcast.test"  # the hall's public name: the only one the edges answer to through nginx
FORGED = "203.0.113.9"
# The edges trust all of loopback as proxies (a venue trusting its own network): a hop a client wrote into
# X-Forwarded-For would then be believed if nginx appended to the header instead of overwriting it.
VENUE_LINES = f'allowed_hosts = ["{NAME}"]\ntrusted_proxies = ["127.0.0.0/8"]\n'
TOPICS = ["venue", "match:A1", "match:A2"]


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A real redis-server for the test."""
    with running_redis(tmp_path) as server:
        yield server


# -- nginx ------------------------------------------------------------------------------------------------


def render(site: str, port: int, edge_ports: tuple[int, int]) -> str:
    """The shipped site with this test's ports: each shipped port replaced exactly once, nothing else."""
    swaps = [(SHIPPED_LISTEN, f"listen 127.0.0.1:{port};")]
    swaps += [(old, f"127.0.0.1:{new}") for old, new in zip(SHIPPED_EDGES, edge_ports, strict=True)]
    for old, new in swaps:
        assert site.count(old) == 1, f"{SITE} no longer holds {old!r} once; update this test with it"
        site = site.replace(old, new)
    return site


@dataclasses.dataclass
class Nginx:
    """nginx as this user, in the foreground, its logs, pid and temporary files under `prefix`."""

    prefix: Path
    port: int
    proc: subprocess.Popen | None = None

    def start(self, edge_ports: tuple[int, int]) -> Nginx:
        binary = shutil.which("nginx") or "/usr/sbin/nginx"
        if not Path(binary).exists():
            pytest.fail(
                "nginx is not installed: run `bash scripts/test.sh` (it installs the Debian package 'nginx') "
                "or `apt-get install nginx`"
            )
        self.prefix.mkdir()
        site = self.prefix / "boardcast.conf"
        site.write_text(render(SITE.read_text(), self.port, edge_ports))
        temp = " ".join(
            f"{kind}_temp_path {self.prefix}/{kind};" for kind in ("proxy", "fastcgi", "uwsgi", "scgi")
        )
        # as root, nginx's workers would run as nobody, which cannot write under a 0700 tmp_path
        user = f"user {pwd.getpwuid(os.geteuid()).pw_name};" if os.geteuid() == 0 else ""
        main = self.prefix / "nginx.conf"  # what Debian's /etc/nginx/nginx.conf is around a site
        main.write_text(
            f"{user}\nworker_processes 1;\nevents {{ worker_connections 1024; }}\n"
            f"http {{\n log_format upstreams '$status|$upstream_addr|$upstream_status|$request_uri';\n"
            f" access_log {self.access_log} upstreams;\n client_body_temp_path {self.prefix}/body;\n"
            f" {temp}\n include {site};\n}}\n"
        )
        log = self.prefix / "error.log"
        settings = f"daemon off; pid {self.prefix}/nginx.pid; error_log {log} warn;"
        self.proc = subprocess.Popen(
            [binary, "-p", str(self.prefix), "-c", str(main), "-e", str(log), "-g", settings],
            stdout=subprocess.DEVNULL,
            stderr=(self.prefix / "stderr.log").open("w"),
        )
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            with contextlib.suppress(OSError):
                request(self.port, "/api/health")  # any answer: what it says is the test's to check
                return self
            time.sleep(0.05)
        errors = (self.prefix / "stderr.log").read_text() + log.read_text(errors="replace")[-2000:]
        pytest.fail(f"nginx did not serve on port {self.port}: {errors}")

    @property
    def access_log(self) -> Path:
        return self.prefix / "access.log"

    def requests(self) -> list[list[str]]:
        """Each request's status, the edges nginx tried for it in order, their answers and the path."""
        return [line.split("|") for line in self.access_log.read_text().splitlines()]

    def tried(self, *edges: str) -> bool:
        """True once a request was sent to these edges in this order (the first ones failing)."""
        return list(edges) in [r[1].split(", ") for r in self.requests()]

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


def request(
    port: int,
    path: str,
    *,
    host: str = NAME,
    method: str = "GET",
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, bytes, str]:
    """One request to 127.0.0.1:port under the Host `host`: status, body, content type."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path, body=body, headers={"Host": f"{host}:{port}", **(headers or {})})
        response = conn.getresponse()
        return response.status, response.read(), response.getheader("content-type") or ""
    finally:
        conn.close()


def read(port: int, path: str) -> Any:
    status, body, _ = request(port, path)
    assert status == 200, (path, status, body[:300])
    return orjson.loads(body)


async def refused_as(url: str, source: str, forged: str) -> dict[str, Any]:
    """Open feeds from `source` with a forged X-Forwarded-For until one is refused for its rate; the refusal.

    An edge allows 60 new feeds at once and 5 a second per client address (hub/server/limits.py WebLimits); the
    refusal names the address it counted them against."""
    opened: list[ClientConnection] = []
    options: dict[str, Any] = {"host": "127.0.0.1", "local_addr": (source, 0), "open_timeout": 5}
    try:
        for _ in range(5):  # 100 at once: past the 60 even if the batch took 8 s on a loaded machine
            tries = [
                connect(url, additional_headers={"X-Forwarded-For": forged}, **options) for _ in range(100)
            ]
            for outcome in await asyncio.gather(*tries, return_exceptions=True):
                if isinstance(outcome, InvalidStatus):
                    assert outcome.response.status_code == 429, outcome.response
                    return orjson.loads(outcome.response.body or b"{}")
                if isinstance(outcome, BaseException):
                    raise outcome
                opened.append(outcome)
        raise AssertionError(f"{len(opened)} feeds from {source} and none refused")
    finally:
        await asyncio.gather(*(ws.close() for ws in opened), return_exceptions=True)


def feeds_on(edges: list[Node], total: int) -> list[int] | None:
    """Each edge's open feeds (its /api/health `clients`), once they add up to `total`."""
    counts = [health(edge)["clients"] for edge in edges]
    return counts if sum(counts) == total else None


def nginx_url(port: int) -> str:
    return f"http://{NAME}:{port}/"


async def pages_and_reads_pass(port: int, edges: list[Node]) -> None:
    """The pages and the REST reads come through nginx under the hall's name, and only under it."""
    status, page, kind = await asyncio.to_thread(request, port, "/")
    assert status == 200 and kind.startswith("text/html")
    assert page == (await asyncio.to_thread(request, edges[0].port, "/", host="127.0.0.1"))[1]
    listed = await asyncio.to_thread(read, port, "/api/matches")
    assert listed == get_json(edges[1].url + "api/matches") and "A1" in orjson.dumps(listed).decode()
    # nginx passes the Host on: the edges answer only to the names the venue lists
    status, body, _ = await asyncio.to_thread(request, port, "/api/matches", host="elsewhere.test")
    assert status == 421 and orjson.loads(body)["limit"] == "allowed_hosts", body


async def client_address_passes(port: int, edge: Node) -> None:
    """nginx names the client it was reached from and drops the client's own X-Forwarded-For."""
    ws = nginx_url(port).replace("http://", "ws://") + "ws"
    refusal = await refused_as(ws, "127.0.0.3", FORGED)
    assert refusal["limit"] == "connects_per_s" and "from 127.0.0.3;" in refusal["error"], refusal
    # which the edge would believe from a trusted address: what nginx must not pass on
    direct = edge.url.replace("http://", "ws://") + "ws"
    refusal = await refused_as(direct, "127.0.0.4", FORGED)
    assert f"from {FORGED};" in refusal["error"], refusal


# -- the test ---------------------------------------------------------------------------------------------


async def test_nginx_spreads_spectators_over_two_edges_and_moves_them_when_one_dies(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    venue = venue_file(tmp_path / "a.toml", "Salon A", "A", VENUE_LINES)
    hub = hub_node(tmp_path, venue, redis_server.url).start()
    edges = [edge_node(tmp_path, venue, redis_server.url, n).start() for n in (1, 2)]
    nodes: list[Node] = [hub, *edges]
    nginx = Nginx(tmp_path / "nginx", free_port())
    try:
        nginx.start((edges[0].port, edges[1].port))
        port = nginx.port

        await pages_and_reads_pass(port, edges)

        clients = [Spectator(nginx_url(port), TOPICS, connect_to="127.0.0.1") for _ in range(6)]
        async with watching(clients):
            await poll(lambda: all(len(c.latest) == len(TOPICS) for c in clients), what="every snapshot")
            on_edges = await poll(lambda: feeds_on(edges, 6), what="six feeds on the edges")
            assert min(on_edges) >= 1, f"nginx sent every feed to one edge: {on_edges}"
            await points(hub, "A1", 5)
            await poll(lambda: all(c.latest.get("match:A1") == 5 for c in clients), what="A1 at 5 everywhere")

            # an edge dies: its spectators come back through nginx to the other one, and resume
            edges[1].kill()
            await points(hub, "A1", 5)
            await points(hub, "A2", 3, side=1)
            await poll(lambda: health(edges[0])["clients"] == 6, what="every feed on the edge still up")
            assert sum(c.reconnects for c in clients) >= on_edges[1]
            seen = [(await asyncio.to_thread(read, port, "/api/matches/A1"))["version"] for _ in range(20)]
            assert seen == sorted(seen) and seen[-1] <= 10, seen  # each one answered (read checks the 200)
            await points(hub, "A1", 3)
            await points(hub, "A2", 2, side=1)

            final = {m: get_json(hub.url + f"api/matches/{m}") for m in ("A1", "A2")}
            await poll(
                lambda: all(
                    c.latest.get(f"match:{m}") == final[m]["version"] for c in clients for m in final
                ),
                what="every spectator on the hub's latest state",
            )
            await asyncio.sleep(0.5)  # anything late would show up now
            for c in clients:
                for m, view in final.items():
                    versions = c.match_versions(f"match:{m}")
                    assert versions == sorted(set(versions)), f"{m} went back or repeated: {versions}"
                    assert (c.last(f"match:{m}") or {}).get("data") == view  # what the hub's REST read says
                    wall = c.venue_versions(m)
                    assert wall == sorted(wall) and wall[-1] == view["version"], wall
            assert await asyncio.to_thread(read, port, "/api/matches/A2") == final["A2"]

        # the first feed back went to the dead edge (it held the fewest) and nginx went on to the next; no
        # request or feed was answered 502 (nginx logs a feed when it closes)
        dead, alive = (f"127.0.0.1:{e.port}" for e in reversed(edges))
        await poll(lambda: nginx.tried(dead, alive), what=f"a feed nginx moved from {dead} to {alive}")
        served = nginx.requests()
        assert not [r for r in served if r[0] in ("502", "504")], served

        # referee actions through nginx: the edge's 421 names the hub that owns the tables
        status, body, _ = await asyncio.to_thread(
            request,
            port,
            "/api/matches/A1/actions",
            method="POST",
            body=b'{"action": "confirm"}',
            headers={"Authorization": f"Bearer {TOKEN}"},
        )
        assert status == 421 and orjson.loads(body)["owner"] == hub.url, body

        await client_address_passes(port, edges[0])
    finally:
        nginx.stop()
        for node in nodes:
            node.stop()


def test_nginx_feed_timeouts_outlast_the_edges_keepalive_pings() -> None:
    """An idle spectator's feed carries only the edge's keepalive pings and their pongs: nginx's /ws timeouts
    must be well past the longest wait between two (twice it: a busy edge pings late), or every quiet screen
    would be cut and reconnect."""
    ws_block = re.search(r"location = /ws \{(.*?)\}", SITE.read_text(), re.S)
    assert ws_block, f"{SITE} has no `location = /ws` block"
    timeouts = dict(re.findall(r"proxy_(read|send)_timeout (\d+)s;", ws_block.group(1)))
    config = server_config(app=None)
    assert config.ws_ping_interval is not None
    longest_wait = config.ws_ping_interval * (1 + PING_SPREAD)
    assert set(timeouts) == {"read", "send"}, timeouts
    for kind, seconds in timeouts.items():
        assert int(seconds) > 2 * longest_wait, (
            f"proxy_{kind}_timeout {seconds}s vs pings every {longest_wait}s"
        )
