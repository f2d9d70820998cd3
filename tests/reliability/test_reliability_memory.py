"""Thousands of spectators coming and going: the hub's memory goes back to what the busiest moment needed,
and no further round adds to it. A real `boardcast serve` process, real WebSocket clients.

Each closed connection used to leave its objects in reference cycles (the scope naming its protocol, the
WebSocket library's parser holding its protocol, the socket transport's read callback bound to itself), freed
only by a full collection every 100 s; in between, new connections were placed around them and the freed
memory could not be given back: 14,000 connections took a hub from 53 to 289 MB.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import websockets

from tests.reliability.conftest import Tried
from tests.reliability.served import MINIMAL_VENUE, ServedHub

ROUNDS, CLIENTS = 20, 2000
HOLD_S = 1.5  # long enough for the hub's clocked collector to move what a connection holds to its oldest generation


async def one_round(url: str) -> int:
    """CLIENTS spectators connect, subscribe and get their snapshot, stay HOLD_S, then all leave."""
    gate = asyncio.Semaphore(400)

    async def spectator() -> websockets.ClientConnection:
        async with gate:
            ws = await websockets.connect(url, open_timeout=30, compression="deflate")
            await ws.send(json.dumps({"subscribe": ["venue", "match:M1"]}))
            await ws.recv()
            return ws

    clients = await asyncio.gather(*(spectator() for _ in range(CLIENTS)))
    await asyncio.sleep(HOLD_S)
    await asyncio.gather(*(ws.close() for ws in clients))
    return len(clients)


def test_memory_comes_back_after_thousands_of_spectators_leave(tmp_path: Path, tried: Tried) -> None:
    with ServedHub(MINIMAL_VENUE, tmp_path) as hub:
        url = f"ws://127.0.0.1:{hub.port}/ws"
        time.sleep(1.0)
        start = hub.rss_mb()
        after: list[float] = []
        served = 0
        for _ in range(ROUNDS):
            served += asyncio.run(one_round(url))
            time.sleep(1.0)  # the hub notices the closes and its clocked collector runs
            after.append(hub.rss_mb())
        clients = hub.get("api/health")["clients"]
    first, last = after[0], after[-1]
    assert served == ROUNDS * CLIENTS and clients == 0
    # every round after the first reuses what the first needed: no growth with the number of rounds
    assert last <= first * 1.2, after
    # and what the first needed is what 2,000 open connections hold, about 25 KiB each
    assert first - start <= CLIENTS * 40 / 1024, (start, after)
    tried(
        f"{ROUNDS} rounds of {CLIENTS} WebSocket spectators connecting, subscribing and leaving",
        area="hostile web clients",
        count=ROUNDS * CLIENTS,
        observed=f"RSS {start:.0f} MB at start, {first:.0f} MB after the first round (2,000 at once), "
        f"{last:.0f} MB after the last ({last / first:.2f}× the first; max {max(after):.0f} MB); "
        f"0 clients left",
    )
