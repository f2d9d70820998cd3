"""A client that keeps knocking on the TCP device gateway with a wrong token: counted, not logged row by row,
and its address shown to referees only. A real hub, real sockets."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import replace
from pathlib import Path

from devices.transports.tcp import UNPROVEN_PER_HOST, token_digest
from tests.conftest import free_port
from tests.devices.test_tcp_gateway import hello_frame
from tests.reliability.conftest import Tried
from tests.reliability.served import silent_sockets
from tests.reliability.support import TOKEN, HubThread, hall_venue, request

DEVICE, DEVICE_TOKEN = "tt-gate-1", "the-right-token-of-tt-gate-1"
KNOCKS = 600


def gateway_venue(port: int):
    """The reliability hall with T2's scoreboard on the TCP gateway."""
    venue = hall_venue()
    t2 = replace(
        venue.tables[1],
        device=f"tcp://127.0.0.1:{port}",
        device_id=DEVICE,
        device_token_sha256=token_digest(DEVICE_TOKEN),
    )
    return replace(venue, tables=(venue.tables[0], t2, *venue.tables[2:]))


async def knock(port: int, source: str) -> bool:
    """One connection with a wrong token; True when the gateway answered and closed it."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    writer.write(hello_frame(DEVICE, "a-wrong-token"))
    await writer.drain()
    async with asyncio.timeout(5):
        answer = await reader.read()
    writer.close()
    return b"unauthorized" in answer or answer == b""


async def knock_many(port: int, count: int, source: str) -> int:
    """`count` wrong-token connections, a few at a time (within the gateway's cap per host); how many were
    turned away."""
    gate = asyncio.Semaphore(UNPROVEN_PER_HOST // 2)

    async def one() -> bool:
        async with gate:
            return await knock(port, source)

    return sum(await asyncio.gather(*(one() for _ in range(count))))


def test_wrong_tokens_are_counted_per_host_not_logged_one_by_one(tmp_path: Path, tried: Tried) -> None:
    port = free_port()
    with HubThread(tmp_path, venue=gateway_venue(port)) as hub:
        rows_before = hub.call(lambda: hub.runtime.log.committed_events)
        started = time.monotonic()
        refused = asyncio.run(knock_many(port, KNOCKS, "127.0.0.2"))
        took = time.monotonic() - started
        time.sleep(0.5)  # the log's next commit
        rows_during = hub.call(lambda: hub.runtime.log.committed_events) - rows_before
        gateway = hub.runtime.gateways[f"tcp://127.0.0.1:{port}"]
        # the minute is over: the rest are reported as one
        hub.call(lambda: gateway.report_counted(time.time() + 61))
        time.sleep(0.5)
        rows_after = hub.call(lambda: hub.runtime.log.committed_events) - rows_before
        public = json.loads(request(hub.url + "api/devices")[2])
        private = json.loads(
            request(hub.url + "api/devices", headers={"Authorization": f"Bearer {TOKEN}"})[2]
        )
    assert refused == KNOCKS
    assert rows_during == 1 and rows_after == 2, (rows_during, rows_after)
    counts = [r["count"] for r in private["refusals"]]
    assert counts == [1, KNOCKS - 1]
    assert all("peer" not in r for r in public["refusals"])
    assert all("peer" not in a.get("data", {}) for a in public["anomalies"])
    assert "127.0.0.2" not in str(public)
    assert all(r["peer"].startswith("127.0.0.2:") for r in private["refusals"])
    assert public["gateways"][0]["refused"] == KNOCKS
    tried(
        f"{KNOCKS} connections with a wrong device token from one host",
        area="device faults",
        count=KNOCKS,
        observed=f"all refused in {took:.1f} s; {rows_during} log row while they came and one summary row "
        f"(count {KNOCKS - 1}) once the minute was over; /api/devices shows the peer's address only "
        f"with a referee token",
    )


def test_connections_that_never_say_hello_are_capped_per_host(tmp_path: Path, tried: Tried) -> None:
    port = free_port()
    with HubThread(tmp_path, venue=gateway_venue(port)) as hub:
        silent = silent_sockets(port, 40, source="127.0.0.3")
        time.sleep(0.5)
        gateway = hub.runtime.gateways[f"tcp://127.0.0.1:{port}"]
        waiting = hub.call(lambda: dict(gateway._unproven))
        # the real device, from another host, still gets in
        asyncio.run(_device_connects(port))
        accepted = hub.call(lambda: gateway.accepted)
        for sock in silent:
            sock.close()
    assert accepted == 1
    assert waiting.get("127.0.0.3", 0) <= UNPROVEN_PER_HOST
    tried(
        "40 connections to the device gateway that never send a HELLO, from one host",
        area="device faults",
        count=40,
        observed=f"{waiting.get('127.0.0.3', 0)} held waiting for their HELLO (cap {UNPROVEN_PER_HOST}), the "
        f"rest closed at once; the real device connected from another host meanwhile",
    )


async def _device_connects(port: int) -> None:
    """The real device says HELLO with its token and stays a second."""
    _, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=("127.0.0.4", 0))
    writer.write(hello_frame(DEVICE, DEVICE_TOKEN))
    await writer.drain()
    await asyncio.sleep(1.0)
    writer.close()
