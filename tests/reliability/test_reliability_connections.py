"""Connections that never become requests, and the server's own answers: real sockets against real hubs.

Each test here failed before `hub/server/connections.py`: a silent socket was held forever, 1,100 of them took a hub
at the usual 1,024 open files off the air, a kept-alive answer waited 40 ms for a delayed ACK, and uvicorn's
own 400 went out without the security headers.
"""

from __future__ import annotations

import asyncio
import http.client
import logging
import resource
import socket
import subprocess
import time
from dataclasses import replace
from pathlib import Path

import pytest
import uvicorn
import websockets

from devices.transports.base import ACCEPT_BATCH, LISTEN_QUEUE
from hub.feed.protocol import announce_started, server_config
from hub.server.connections import QuietRepeats, Unfinished
from hub.server.limits import SECURITY_HEADERS, WebLimits
from tests.conftest import free_port
from tests.reliability.conftest import Tried
from tests.reliability.served import MINIMAL_VENUE, ServedHub, closed_by_peer, percentile, silent_sockets
from tests.reliability.support import TOKEN, HubThread, hall_venue

NO_EXEMPTION = frozenset[str]()
HEADER_NAMES = [name.decode() for name, _ in SECURITY_HEADERS]


def _answer_to(sock: socket.socket, within: float) -> tuple[bytes, float]:
    """Everything the hub sends until it closes the connection, and how long that took."""
    sock.settimeout(within)
    started, data = time.monotonic(), b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except TimeoutError:
        pytest.fail(f"the hub kept the connection open for {within} s; received {data[:80]!r}")
    except ConnectionResetError:
        pass
    return data, time.monotonic() - started


def _has_security_headers(answer: bytes) -> bool:
    head = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1").lower()
    return all(f"\r\n{name}:" in head for name in HEADER_NAMES)


def test_a_request_that_never_arrives_gets_408_and_is_closed(tmp_path: Path, tried: Tried) -> None:
    limits = WebLimits(request_timeout_s=1.0, exempt=NO_EXEMPTION)
    with HubThread(tmp_path, limits=limits) as hub:
        port = hub.runtime.port
        cases = {
            "nothing sent": b"",
            "half a request head": b"GET /api/health HTTP/1.1\r\nHost: x\r\n",
            "a head, then a body that stops": b"POST /api/matches/R1-T1/confirm HTTP/1.1\r\nHost: x\r\n"
            + f"Authorization: Bearer {TOKEN}\r\n".encode()
            + b"Content-Length: 100\r\n\r\n{",
        }
        seen = {}
        for name, sent in cases.items():
            with socket.create_connection(("127.0.0.1", port)) as sock:
                sock.sendall(sent)
                seen[name] = _answer_to(sock, within=5.0)
        # a kept-alive connection: one full request, then half of the next
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
            time.sleep(0.3)
            sock.sendall(b"GET /api/he")
            answer, took = _answer_to(sock, within=5.0)
            seen["a kept-alive connection's next head cut short"] = (answer.split(b"HTTP/1.1 ")[-1], took)
        health = hub.call(lambda: hub.runtime.unfinished.health())
        refused = dict(hub.runtime.refused)
    for name, (answer, took) in seen.items():
        assert answer.startswith(b"408 ") or answer.startswith(b"HTTP/1.1 408 "), (name, answer[:60])
        assert 0.5 <= took <= 3.0, (name, took)
        assert _has_security_headers(b"HTTP/1.1 " + answer.split(b"HTTP/1.1 ")[-1]), name
    assert health["unfinished"] == 0 and refused["request_timeout"] == len(seen)
    tried(
        "connections that never finish their request (silent, half a head, a stalled body, a kept-alive "
        "connection's next head)",
        area="hostile web clients",
        count=len(seen),
        observed=f"each answered 408 with the security headers and closed after "
        f"{min(t for _, t in seen.values()):.1f}-{max(t for _, t in seen.values()):.1f} s (deadline 1 s); "
        f"none left waiting",
    )


def test_waiting_connections_past_a_cap_close_the_oldest(tmp_path: Path, tried: Tried) -> None:
    limits = WebLimits(
        unfinished_per_address=20, unfinished_total=50, evict_after_s=0.2, exempt=frozenset({"127.0.0.1"})
    )
    with HubThread(tmp_path, limits=limits) as hub:
        port = hub.runtime.port
        groups: dict[str, list[socket.socket]] = {}
        # a burst from one address is let in whole: none of it has waited yet
        groups["127.0.0.2"] = silent_sockets(port, 30, source="127.0.0.2")
        time.sleep(0.3)
        burst = hub.call(lambda: len(hub.runtime.unfinished))
        # more from it: its cap (20) closes its oldest; then others, and the exempt address: the total (50)
        groups["127.0.0.2"] += silent_sockets(port, 10, source="127.0.0.2")
        for source in ("127.0.0.3", "127.0.0.4", "127.0.0.1"):
            time.sleep(0.3)
            groups[source] = silent_sockets(port, 25, source=source)
        time.sleep(0.3)
        # a normal client, from the address that has the most waiting, is served at once
        with socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0)) as sock:
            sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            answer, _ = _answer_to(sock, within=5.0)
        health = hub.call(lambda: hub.runtime.unfinished.health())
        refused = dict(hub.runtime.refused)
        closed = {source: sum(closed_by_peer(s) for s in socks) for source, socks in groups.items()}
        for socks in groups.values():
            for sock in socks:
                sock.close()
    assert burst == 30
    assert answer.startswith(b"HTTP/1.1 200 ")
    assert health["unfinished"] <= 50
    assert refused["unfinished_per_address"] >= 20 and refused["unfinished_total"] >= 25
    assert closed["127.0.0.2"] >= 30  # the oldest go first: its own cap, then the total
    total = sum(len(s) for s in groups.values())
    assert sum(closed.values()) == refused["unfinished_per_address"] + refused["unfinished_total"]
    tried(
        f"{total} silent connections from four addresses (caps: 20 per address, 50 in all)",
        area="hostile web clients",
        count=total,
        observed=f"a burst of 30 let in whole; then {sum(closed.values())} oldest closed by the hub "
        f"({refused['unfinished_per_address']} by the per-address cap, {refused['unfinished_total']} by the "
        f"total); {health['unfinished']} left waiting; a request from the busiest address answered 200 at once",
    )


def test_a_burst_of_real_clients_past_the_cap_is_served_whole(tmp_path: Path, tried: Tried) -> None:
    """asyncio accepts a burst before it reads any request: the cap must not take them for idle sockets."""

    async def burst(port: int, count: int) -> list[bytes]:
        async def one() -> bytes:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            answer = await reader.read()
            writer.close()
            return answer[:12]

        return await asyncio.gather(*(one() for _ in range(count)))

    with HubThread(tmp_path, limits=WebLimits(unfinished_total=50)) as hub:
        answers = asyncio.run(burst(hub.runtime.port, 600))
        refused = dict(hub.runtime.refused)
    assert answers == [b"HTTP/1.1 200"] * 600
    assert "unfinished_total" not in refused
    tried(
        "600 clients connecting at once, each sending its request at once (cap: 50 waiting)",
        area="hostile web clients",
        count=600,
        observed="all 600 answered 200; none closed by the cap (it closes only connections that have waited)",
    )


def _ask(sock: socket.socket, request: bytes) -> bytes:
    """One request on a kept-alive connection: the answer's status line, or b"reset" if the hub closed it."""
    try:
        sock.sendall(request)
        sock.settimeout(5)
        return _read_one_answer(sock)[:12]
    except OSError:
        return b"reset"


def _read_one_answer(sock: socket.socket) -> bytes:
    """One whole answer on a kept-alive connection: its head, then as many bytes as its Content-Length."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionResetError("closed before the answer")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += sock.recv(65536)
    return head


def test_a_trusted_proxys_pooled_connections_are_not_capped_per_address(tmp_path: Path, tried: Tried) -> None:
    """A reverse proxy keeps many connections open to the hub for its clients' next requests."""

    def pooled(port: int, count: int) -> list[bytes]:
        pool = [
            socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0))
            for _ in range(count)
        ]
        first = []
        for n, sock in enumerate(pool):  # the first request on each, then all idle, as a proxy's pool is
            first.append(_ask(sock, b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            if n == count // 2 - 1:
                time.sleep(0.3)  # the first half has waited past evict_after_s when the second half comes
        time.sleep(0.5)
        last = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        answers = [
            _ask(sock, last) if status == b"HTTP/1.1 200" else status
            for sock, status in zip(pool, first, strict=True)
        ]
        for sock in pool:
            sock.close()
        return answers

    limits = WebLimits(unfinished_per_address=20, evict_after_s=0.2, requests_per_s=1000, exempt=NO_EXEMPTION)
    proxied = replace(hall_venue(), trusted_proxies=("127.0.0.2",))
    with HubThread(tmp_path, limits=limits, venue=proxied) as hub:
        answers = pooled(hub.runtime.port, 40)
    with HubThread(tmp_path / "untrusted", limits=limits) as hub:
        untrusted = pooled(hub.runtime.port, 40)
    assert answers == [b"HTTP/1.1 200"] * 40
    assert untrusted.count(b"HTTP/1.1 200") <= 20
    tried(
        "40 kept-alive connections from a trusted reverse proxy, idle between requests (cap: 20 per address)",
        area="access",
        count=40,
        observed=f"all 40 served again after idling; from an address not in trusted_proxies "
        f"{untrusted.count(b'HTTP/1.1 200')} of 40 (its oldest waiting closed by the cap)",
    )


def test_silent_sockets_at_the_usual_open_files_limit_leave_the_hub_serving(
    tmp_path: Path, tried: Tried
) -> None:
    """1,100 silent sockets against a hub limited to 1,024 descriptors (hard limit too, so none to raise)."""
    with ServedHub(MINIMAL_VENUE, tmp_path, open_files=(1024, 1024)) as hub:
        sockets = silent_sockets(hub.port, 1100)
        timings = []
        try:
            deadline = time.monotonic() + 8
            while time.monotonic() < deadline:
                started = time.perf_counter()
                health = hub.get("api/health", timeout=5)
                timings.append((time.perf_counter() - started) * 1000)
                time.sleep(0.05)
            descriptors = hub.open_descriptors()
        finally:
            for sock in sockets:
                sock.close()
        stderr = hub.stderr_bytes()
    p99 = percentile(timings, 0.99)
    assert health["open_files"]["limit"] == 1024
    assert health["connections"]["cap_total"] == 256
    assert p99 < 100, timings
    assert descriptors < 1024 and stderr < 1_000_000
    tried(
        "1,100 silent sockets against a hub limited to 1,024 open files",
        area="hostile web clients",
        count=1100,
        observed=f"/api/health answered {len(timings)} of {len(timings)} times throughout, p99 {p99:.1f} ms; "
        f"the hub held {descriptors} descriptors (at most 256 connections waiting); stderr {stderr} bytes",
    )


def _listening(port: int) -> list[str]:
    """`ss`'s line for the listening socket once its queue is deepened (the hub does it as it starts serving,
    a moment after it first answers)."""
    deadline = time.monotonic() + 3
    while True:
        line = subprocess.run(
            ["ss", "-Hltn", f"sport = :{port}"], capture_output=True, text=True, check=True
        ).stdout.split()
        if line[2] == str(LISTEN_QUEUE) or time.monotonic() > deadline:
            return line
        time.sleep(0.05)


def test_a_burst_past_the_open_files_limit_is_taken_a_batch_at_a_time(tmp_path: Path, tried: Tried) -> None:
    """1,500 sockets connecting at once to a hub limited to 1,024 descriptors: the kernel queues the burst,
    the hub takes a few per turn of its loop, the caps close the oldest waiting before descriptors run out,
    so accepting never stops (asyncio would stop for a whole second) and every /api/health is quick."""
    with ServedHub(MINIMAL_VENUE, tmp_path, open_files=(1024, 1024)) as hub:
        listening = _listening(hub.port)
        sockets = [s for n in range(2, 8) for s in silent_sockets(hub.port, 250, source=f"127.0.0.{n}")]
        timings, peak = [], 0
        try:
            deadline = time.monotonic() + 4
            while time.monotonic() < deadline:
                started = time.perf_counter()
                hub.get("api/health", timeout=5)
                timings.append((time.perf_counter() - started) * 1000)
                peak = max(peak, hub.open_descriptors())
                time.sleep(0.02)
        finally:
            for sock in sockets:
                sock.close()
        stderr = hub.stderr_path.read_text(errors="replace")
    assert listening[2] == str(LISTEN_QUEUE), listening  # ss shows a listening socket's queue as Send-Q
    assert "out of system resource" not in stderr, stderr[-2000:]
    assert max(timings) < 500 and peak < 1024, (peak, timings)
    tried(
        "1,500 sockets connecting at once from 6 addresses to a hub limited to 1,024 open files",
        area="hostile web clients",
        count=len(sockets),
        observed=f"the hub took them {ACCEPT_BATCH} per turn of its loop and never ran out of descriptors "
        f"(peak {peak}); /api/health answered {len(timings)} of {len(timings)}, slowest "
        f"{max(timings):.1f} ms",
    )


GATEWAY_VENUE = (
    MINIMAL_VENUE
    + """
[[tables]]
id = "T2"
sport = "tabletennis"
device = "tcp://127.0.0.1:{port}"
device_id = "tt-gate"
device_token_sha256 = "{digest}"
"""
)


def test_device_gateway_and_web_sockets_together_stay_within_256_open_files(
    tmp_path: Path, tried: Tried
) -> None:
    """Silent sockets on the device gateway count against the same descriptors as the web's."""
    gateway = free_port()
    venue = GATEWAY_VENUE.format(port=gateway, digest="0" * 64)
    with ServedHub(venue, tmp_path, open_files=(256, 256)) as hub:
        held = [s for n in range(2, 10) for s in silent_sockets(gateway, 8, source=f"127.0.0.{n}")]
        held += [s for n in range(10, 15) for s in silent_sockets(hub.port, 40, source=f"127.0.0.{n}")]
        timings, failures = [], 0
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline:
            started = time.perf_counter()
            try:
                hub.get("api/health", timeout=2)
                timings.append((time.perf_counter() - started) * 1000)
            except OSError:
                failures += 1
            time.sleep(0.05)
        descriptors = hub.open_descriptors()
        for sock in held:
            sock.close()
        stderr = hub.stderr_bytes()
    assert failures == 0 and percentile(timings, 0.99) < 100, (failures, timings)
    assert descriptors < 256 and stderr < 100_000
    tried(
        "64 silent device-gateway sockets from 8 hosts and 200 silent web sockets from 5, at 256 open files",
        area="hostile web clients",
        count=len(held),
        observed=f"/api/health answered {len(timings)} of {len(timings) + failures}, p99 "
        f"{percentile(timings, 0.99):.1f} ms; the hub held {descriptors} descriptors; stderr {stderr} bytes",
    )


def test_the_open_files_limit_is_raised_to_the_hard_limit_and_reported(tmp_path: Path) -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert hard >= 2048, "this test needs a hard open-files limit of at least 2,048"
    with ServedHub(MINIMAL_VENUE, tmp_path, open_files=(1024, 2048)) as hub:
        health = hub.get("api/health")
    assert health["open_files"]["limit"] == 2048 and health["open_files"]["hard_limit"] == 2048
    assert 0 < health["open_files"]["open"] < 100


def test_kept_alive_answers_go_out_at_once(tmp_path: Path, tried: Tried) -> None:
    """An answer's head and body are two writes; without TCP_NODELAY the second waited for a delayed ACK."""
    with HubThread(tmp_path) as hub:
        connection = http.client.HTTPConnection("127.0.0.1", hub.runtime.port, timeout=5)
        timings = []
        for _ in range(100):
            started = time.perf_counter()
            connection.request("GET", "/api/matches/R1-T1")
            response = connection.getresponse()
            response.read()
            timings.append((time.perf_counter() - started) * 1000)
            assert response.status == 200
        connection.close()
    median, p90 = percentile(timings, 0.5), percentile(timings, 0.9)
    assert median < 2.0 and p90 < 5.0, timings
    tried(
        "100 requests on one kept-alive connection",
        area="hostile web clients",
        count=100,
        observed=f"median {median:.2f} ms, p90 {p90:.2f} ms (40+ ms each before TCP_NODELAY was set)",
    )


def test_the_servers_own_refusals_carry_the_security_headers(tmp_path: Path, tried: Tried) -> None:
    with HubThread(tmp_path) as hub:
        port = hub.runtime.port
        answers = {}
        for name, sent in {
            "not HTTP": b"BLAH\r\n\r\n",
            "a header line without a colon": b"GET / HTTP/1.1\r\nHost x\r\n\r\n",
            "a WebSocket upgrade without its key": b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
            b"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n",
        }.items():
            with socket.create_connection(("127.0.0.1", port)) as sock:
                sock.sendall(sent)
                answers[name], _ = _answer_to(sock, within=5.0)
    for name, answer in answers.items():
        assert answer.startswith(b"HTTP/1.1 400 "), (name, answer[:60])
        assert _has_security_headers(answer), (name, answer)
    tried(
        "requests the HTTP server itself refuses (not HTTP, a bad header line, a WebSocket upgrade without "
        "its key)",
        area="access",
        count=len(answers),
        observed="each a 400 with CSP, nosniff, X-Frame-Options, Referrer-Policy and COOP",
    )


async def test_a_websocket_handshake_the_app_never_answers_is_closed() -> None:
    async def never_answers(scope: dict, receive: object, send: object) -> None:
        await asyncio.sleep(3600)

    limits = WebLimits(handshake_timeout_s=0.5)
    port = free_port()
    config = server_config(never_answers, Unfinished(limits), host="127.0.0.1", port=port)
    server = uvicorn.Server(config)
    ready = asyncio.Event()
    serving = asyncio.create_task(server.serve())
    await announce_started(server, ready)
    try:
        started = time.monotonic()
        with pytest.raises((websockets.InvalidMessage, websockets.ConnectionClosed, OSError)):
            await websockets.connect(f"ws://127.0.0.1:{port}/ws", open_timeout=5)
        assert time.monotonic() - started < 2.0
    finally:
        server.should_exit = True
        server.force_exit = True
        await serving


async def test_a_flood_of_loop_errors_is_logged_once_a_second(caplog: pytest.LogCaptureFixture) -> None:
    """asyncio logs each accept that fails for want of descriptors, traceback and all."""
    loop = asyncio.get_running_loop()
    handler = QuietRepeats()
    error = OSError(24, "Too many open files")
    with caplog.at_level(logging.ERROR):
        started = time.monotonic()
        while time.monotonic() - started < 1.5:
            for _ in range(1000):
                handler(loop, {"message": "socket.accept() out of system resource", "exception": error})
    lines = [r for r in caplog.records if "socket.accept()" in r.getMessage()]
    total = handler.total["socket.accept() out of system resource"]
    assert total >= 10_000
    assert 2 <= len(lines) <= 3
    assert "more like it" in lines[-1].getMessage()
