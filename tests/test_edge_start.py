"""Bad input to a spectator edge, with real processes and a real redis-server.

An edge started with a Redis URL that does not work (nothing listening, a name that does not resolve, a
Redis that wants a password or refuses the one given, a server that is not Redis) or with a venue name no
hub publishes says so in one line and exits non-zero within seconds. An edge started before its hub waits
for it. A match the hub publishes but the edge's venue file lacks is a warning, once. A client that forges
`X-Forwarded-For` without a trusted proxy is still held to its own address's request limit on an edge. A hub
(`serve --bus`) whose Redis does not answer keeps serving its hall and warns, the URL's password hidden.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import http.server
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.bussupport import RedisServer, edge_node, hub_node, points, poll, running_redis, venue_file
from tests.conftest import ROOT, free_port, get_json

SECRET = "edge-check-secret"


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A real redis-server for the test."""
    with running_redis(tmp_path) as server:
        yield server


def edge_run(venue: Path, bus: str, *extra: str, within: float) -> tuple[int, list[str], str, float]:
    """Run `boardcast edge` to its end: exit code, stderr's lines, stdout, seconds taken (fails past `within`)."""
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "hub", "edge", "--venue", str(venue), "--bus", bus, "--port", "0", *extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=within,
    )
    return proc.returncode, proc.stderr.splitlines(), proc.stdout, time.monotonic() - started


@contextlib.contextmanager
def http_server() -> Iterator[int]:
    """A real HTTP server (not Redis) on a free port."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def silent_server() -> Iterator[int]:
    """A port whose connections are accepted (by the kernel) and never answered."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield sock.getsockname()[1]


def test_an_unreadable_bus_url_is_one_line_and_exit_2(tmp_path: Path) -> None:
    hall = venue_file(tmp_path / "a.toml", "Salon A", "A")
    code, errors, _, _ = edge_run(hall, "redis://:secret@[::1/0", within=30)
    assert code == 2 and len(errors) == 1, (code, errors)
    assert "Invalid IPv6 URL" in errors[0] and "secret" not in errors[0], errors


def test_a_redis_url_that_does_not_work_is_one_line_and_a_non_zero_exit(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    venue = venue_file(tmp_path / "a.toml", "Salon A", "A")
    locked = redis_server.client()
    locked.config_set("requirepass", SECRET)  # this Redis now wants a password
    port = redis_server.port
    nobody = free_port()
    with http_server() as web, silent_server() as silent:
        cases = {  # URL: (exit code, what the line says, seconds allowed)
            f"redis://127.0.0.1:{nobody}/0": (1, f"nothing listens on 127.0.0.1:{nobody}", 8.0),
            "redis://no-such-host.invalid:6379/0": (2, "'no-such-host.invalid' does not resolve", 8.0),
            f"redis://127.0.0.1:{port}/0": (2, f"Redis at 127.0.0.1:{port} needs a password", 8.0),
            f"redis://:wrong-{SECRET}@127.0.0.1:{port}/0": (2, "refused the user/password", 8.0),
            f"redis://127.0.0.1:{web}/0": (2, f"the server on 127.0.0.1:{web} does not speak Redis", 8.0),
            f"redis://127.0.0.1:{silent}/0": (1, f"no answer from 127.0.0.1:{silent} within 3 s", 12.0),
        }
        for url, (code, says, within) in cases.items():
            got, errors, out, took = edge_run(venue, url, within=30)
            assert got == code, (url, got, errors)
            assert len(errors) == 1 and says in errors[0], (url, errors)
            assert errors[0].startswith("boardcast: bus redis://") and " / " in errors[0], (
                errors
            )  # both languages
            assert SECRET not in errors[0] and "Spectators" not in out, (url, errors, out)
            assert took < within, (url, took)
    # with the password it passes the check: no hub publishes yet, so it waits (here 0 s) and says that
    got, errors, out, _ = edge_run(
        venue, f"redis://:{SECRET}@127.0.0.1:{port}/0", "--wait-for-hub", "0", within=30
    )
    assert got == 1 and len(errors) == 1 and "no hub publishes venue 'Salon A'" in errors[0], errors
    assert "redis://:***@127.0.0.1" in errors[0] and SECRET not in errors[0], errors


def test_a_venue_no_hub_publishes_is_named_with_the_venues_redis_carries(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    hub_b = hub_node(tmp_path, venue_file(tmp_path / "b.toml", "Salon B", "B"), redis_server.url).start()
    try:
        typo = venue_file(tmp_path / "typo.toml", "Salon Z", "A")
        # it waits for its hub as at any first start (another hall's hub may simply have come up first),
        # naming what Redis carries at once; when no hub has come, the name is the mistake: exit 2
        code, errors, out, took = edge_run(typo, redis_server.url, "--wait-for-hub", "1.5", within=30)
        assert code == 2 and len(errors) == 1, (code, errors)
        assert (
            "no hub publishes venue 'Salon Z'" in errors[0] and "this Redis carries: 'Salon B'" in errors[0]
        )
        assert "Waiting up to 1.5 s" in out and "(it carries 'Salon B')" in out, out
        assert 1.5 < took < 10, took
    finally:
        hub_b.stop()
    # a Redis that carries no hall at all: the edge waits --wait-for-hub seconds, then says so
    empty = f"redis://127.0.0.1:{redis_server.port}/3"
    code, errors, out, took = edge_run(typo, empty, "--wait-for-hub", "1.5", within=30)
    assert code == 1 and len(errors) == 1, (code, errors)
    assert "after waiting 1.5 s; this Redis carries no venue yet" in errors[0], errors
    assert "Waiting up to 1.5 s for the hub of 'Salon Z'" in out and 1.5 < took < 10, (out, took)


async def test_an_edge_started_before_its_hub_waits_for_it_and_names_matches_it_does_not_list(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    hall = venue_file(tmp_path / "a.toml", "Salon A", "A")
    only_a1 = tmp_path / "edge-a.toml"  # the edge's copy of the venue file lacks match A2
    only_a1.write_text("\n\n".join(b for b in hall.read_text().split("\n\n") if 'id = "A2"' not in b))
    edge = edge_node(tmp_path, only_a1, redis_server.url, 1)
    edge.args += ["--wait-for-hub", "60"]
    hub = hub_node(tmp_path, hall, redis_server.url)
    try:
        starting = asyncio.create_task(asyncio.to_thread(edge.start))
        await poll(lambda: "Waiting up to 60 s for the hub" in edge.log.read_text(), what="the edge waits")
        hub.start()
        await starting  # it serves once the hub has published
        await points(hub, "A1", 2)
        await points(hub, "A2", 3)
        await poll(lambda: get_json(edge.url + "api/matches/A1")["version"] == 2, what="A1 on the edge")
        await poll(lambda: get_json(edge.url + "api/health")["unknown_matches"] >= 3, what="A2 counted")
        warnings = [line for line in edge.log.read_text().splitlines() if "match A2" in line]
        assert len(warnings) == 1 and "WARNING" in warnings[0] and "does not list" in warnings[0], warnings
    finally:
        edge.stop()
        hub.stop()


def _burst(port: int, count: int) -> tuple[list[int], list[str], float]:
    """`count` requests on one connection from 127.0.0.2, each forging a new X-Forwarded-For client."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=("127.0.0.2", 0))
    statuses, refusals = [], []
    started = time.monotonic()
    try:
        for n in range(count):
            forged = f"198.51.{n // 250}.{n % 250 + 1}"
            conn.request("GET", "/api/health", headers={"Host": "127.0.0.1", "X-Forwarded-For": forged})
            response = conn.getresponse()
            body = response.read()
            statuses.append(response.status)
            if response.status == 429:
                refusals.append(json.loads(body)["error"])
    finally:
        conn.close()
    return statuses, refusals, time.monotonic() - started


def test_a_forged_x_forwarded_for_gains_nothing_on_an_edge(tmp_path: Path, redis_server: RedisServer) -> None:
    """The default limit: a burst of 200 requests per address, then 50 a second (hub/server/limits.py)."""
    hall = venue_file(tmp_path / "a.toml", "Salon A", "A")
    proxied = tmp_path / "proxied.toml"  # the same hall, behind a trusted proxy at 127.0.0.2
    proxied.write_text(hall.read_text().replace("[venue]\n", '[venue]\ntrusted_proxies = ["127.0.0.2"]\n', 1))
    hub = hub_node(tmp_path, hall, redis_server.url).start()
    plain_edge = edge_node(tmp_path, hall, redis_server.url, 1).start()
    proxied_edge = edge_node(tmp_path, proxied, redis_server.url, 2).start()
    try:
        statuses, refusals, took = _burst(plain_edge.port, 320)
        behind, _, _ = _burst(proxied_edge.port, 320)
    finally:
        for node in (proxied_edge, plain_edge, hub):
            node.stop()
    served = statuses.count(200)
    assert served + len(refusals) == 320 and refusals, statuses
    assert served <= 200 + 50 * took + 1, (served, took)  # one address's budget, whatever the header said
    assert all("from 127.0.0.2" in r for r in refusals), refusals[:3]  # counted as the peer it is
    assert behind == [200] * 320  # from a trusted proxy each forwarded client has its own budget


async def test_a_hub_whose_redis_does_not_answer_serves_its_hall_and_says_so(tmp_path: Path) -> None:
    """A hub keeps its hall going whatever Redis does: it warns, with the password hidden, and retries."""
    bus = f"redis://:{SECRET}@127.0.0.1:{free_port()}/0"
    hub = hub_node(tmp_path, venue_file(tmp_path / "a.toml", "Salon A", "A"), bus).start()
    try:
        await points(hub, "A1", 2)  # the hall goes on
        health = await poll(lambda: (h := get_json(hub.url + "api/health"))["bus"]["link"] == "down" and h)
        assert health["bus"]["url"].startswith("redis://:***@127.0.0.1:") and health["bus"]["backlog"] >= 1
        await poll(lambda: "WARNING bus redis://:***@127.0.0.1:" in hub.log.read_text(), what="a warning")
    finally:
        hub.stop()
    text = hub.log.read_text()
    assert "Bus / Veri yolu: redis://:***@127.0.0.1:" in text and SECRET not in text, text[-2000:]


async def test_an_edge_stopped_by_sigterm_stops_cleanly(tmp_path: Path, redis_server: RedisServer) -> None:
    """systemd stops a service with SIGTERM: the edge closes its clients and says so, exit 0."""
    hall = venue_file(tmp_path / "a.toml", "Salon A", "A")
    hub = hub_node(tmp_path, hall, redis_server.url).start()
    edge = edge_node(tmp_path, hall, redis_server.url, 1).start()
    try:
        assert edge.proc is not None
        edge.proc.send_signal(signal.SIGTERM)
        assert edge.proc.wait(timeout=15) == 0, edge.log.read_text()[-2000:]
        assert "Stopped. / Durduruldu." in edge.log.read_text()
    finally:
        edge.stop()
        hub.stop()


def test_the_bus_url_may_come_from_the_environment_and_stays_out_of_the_process_list(tmp_path: Path) -> None:
    """BOARDCAST_BUS, as the systemd units set it: the edge uses it, and its password is never printed."""
    hall = venue_file(tmp_path / "a.toml", "Salon A", "A")
    url = f"redis://:{SECRET}@127.0.0.1:{free_port()}/0"  # nothing listens there
    proc = subprocess.run(
        [sys.executable, "-m", "hub", "edge", "--venue", str(hall), "--port", "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "BOARDCAST_BUS": url},
    )
    errors = proc.stderr.splitlines()
    assert proc.returncode == 1 and len(errors) == 1, (proc.returncode, errors)
    assert "nothing listens on 127.0.0.1" in errors[0] and "redis://:***@127.0.0.1" in errors[0], errors
    assert SECRET not in proc.stderr + proc.stdout
