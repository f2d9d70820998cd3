"""Thousands of spectators coming and going: the hub gives back what each burst needed once it has gone,
and its memory stays within 20 % of what it held at start. A real `boardcast serve` process (on the C
allocator with one heap, as the command starts itself: hub/server/allocator.py), real WebSocket clients.

Each closed connection used to leave its objects in reference cycles, and CPython's small-object allocator
keeps a 1 MiB arena while any object in it lives: 14,000 connections took a hub from 53 to 289 MB, and with
the cycles broken a hub still held twice its start after the first burst. On the C allocator it came back
to 1.2× its start, held there by small blocks that the WebSocket library's date formatting left on ~1,600
pages of each burst's memory (hub/feed/protocol.py `_Handshakes.accept`); without them, 1.07×.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import websockets

from tests.reliability.conftest import Tried
from tests.reliability.served import MINIMAL_VENUE, ServedHub

# six bursts show both failures it guards against (growth from the first burst on, and a creep over bursts);
# twenty took two minutes of the suite
ROUNDS, CLIENTS = 6, 2000
GIVE_BACK_WITHIN_S = 10.0
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


def given_back(hub: ServedHub) -> int:
    """How many times the hub has given memory back to the system."""
    return int(hub.get("api/health")["heap"]["given_back"])


def test_memory_comes_back_after_thousands_of_spectators_leave(tmp_path: Path, tried: Tried) -> None:
    with ServedHub(MINIMAL_VENUE, tmp_path) as hub:
        url = f"ws://127.0.0.1:{hub.port}/ws"
        time.sleep(1.0)
        start = hub.rss_mb()
        after: list[float] = []
        waited: list[float] = []
        served = 0
        for _ in range(ROUNDS):
            times = given_back(hub)
            served += asyncio.run(one_round(url))
            left = time.monotonic()
            while given_back(hub) == times and time.monotonic() - left < GIVE_BACK_WITHIN_S:
                time.sleep(0.1)
            waited.append(time.monotonic() - left)
            after.append(hub.rss_mb())
        clients = hub.get("api/health")["clients"]
    assert served == ROUNDS * CLIENTS and clients == 0
    # each burst's memory went back to the system within a few seconds of its last client leaving
    assert max(waited) < GIVE_BACK_WITHIN_S, waited
    # after every round, within 20 % of the start
    assert max(after) <= start * 1.2, (start, after)
    tried(
        f"{ROUNDS} rounds of {CLIENTS} WebSocket spectators connecting, subscribing and leaving",
        area="hostile web clients",
        count=ROUNDS * CLIENTS,
        observed=f"RSS {start:.0f} MB at start; after each round's clients left, given back within "
        f"{max(waited):.1f} s to {min(after):.0f}–{max(after):.0f} MB ({max(after) / start:.2f}× the start "
        f"at most), {after[-1]:.0f} MB after the last; 0 clients left",
    )
