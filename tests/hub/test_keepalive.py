"""Keepalive pings are spread: clients that connected together are not all pinged in the same instant
(real uvicorn server, real sockets, the hub's `FeedProtocol`)."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from websockets.asyncio.client import connect

from hub.feed.protocol import PING_SPREAD, keepalive_delay
from tests.hub.test_fanout import served_hall

INTERVAL = 2.0
CLIENTS = 30


def test_the_delay_stays_within_the_spread_and_takes_off_the_round_trip() -> None:
    assert keepalive_delay(20.0, 0.0, 0.0) == 20.0 * (1 - PING_SPREAD)
    assert keepalive_delay(20.0, 0.0, 1.0) == 20.0 * (1 + PING_SPREAD)
    assert keepalive_delay(20.0, 0.5, 0.5) == 19.5
    assert keepalive_delay(1.0, 5.0, 0.5) == 0.0  # a round trip longer than the wait: ping at once


async def test_clients_connected_together_are_pinged_at_different_times(tmp_path: Path) -> None:
    options = {"ws_ping_interval": INTERVAL, "ws_ping_timeout": 10.0}
    async with (
        served_hall(tmp_path, server=options) as (port, fanout, _ctx),
        contextlib.AsyncExitStack() as stack,
    ):
        loop = asyncio.get_running_loop()
        connected_at = []
        for _ in range(CLIENTS):
            ws = await stack.enter_async_context(connect(f"ws://127.0.0.1:{port}/ws"))
            await ws.send('{"subscribe": ["venue"]}')
            await ws.recv()  # the snapshot: the hub has accepted it and its keepalive runs
            connected_at.append(loop.time())
        links = [sub.link for sub in sorted(fanout.clients, key=lambda sub: sub.id)]
        assert len(links) == CLIENTS
        async with asyncio.timeout(INTERVAL * (1 + PING_SPREAD) + 10.0):  # every client is pinged
            while not all(link.ping_sent_at > 0 for link in links):
                await asyncio.sleep(0.05)
        waits = [link.ping_sent_at - at for link, at in zip(links, connected_at, strict=True)]
        # each waited about the interval: the exact wait is `keepalive_delay`'s (tested above); here a loaded
        # machine may send a ping late or have accepted the client long before its snapshot, so a second of slack
        assert all(
            INTERVAL * (1 - PING_SPREAD) - 1.0 <= w <= INTERVAL * (1 + PING_SPREAD) + 1.0 for w in waits
        )
        # uvicorn's own keepalive waits exactly the interval, so these would be pinged within milliseconds of
        # each other, as they connected; drawn from ±20 % of 2 s, thirty waits spread much wider (the chance
        # that thirty uniform draws over 0.8 s all fall within 0.4 s of each other is 31 / 2**30)
        assert max(waits) - min(waits) >= INTERVAL * PING_SPREAD
