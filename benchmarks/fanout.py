"""fanout: frames/s delivered to N real WebSocket clients in another process, ours vs `websockets.broadcast()`.

Ours: a real `HubRuntime` (`hub.feed.fanout` writing finished frames to each socket through `hub.feed.protocol`, the
Starlette app on uvicorn); a publisher task publishes a change to one topic that every client watches,
then yields (`asyncio.sleep(0)`), as fast as the loop lets it. The topic's window (1,000 watchers: 50 ms)
gathers changes into one write per client; every change still arrives as its own frame and is counted
as one. The row's detail also gives ours with windows off (each change written to each client alone,
broadcast()'s own shape), to show what the direct write path alone does. Both publishers are held
back: the baseline while a sample client has over 256 KiB unsent, ours (more strictly) while any client
is behind (over the fan-out's own 16 KiB mark). Baseline: a bare `websockets` 17
server (compression and pings off) that calls `websockets.broadcast()` with the same text, same loop
pattern, held back only while a client's write buffer is over 256 KiB (it has no backpressure of its own).
The clients (`benchmarks.wsclient`, raw asyncio sockets, upgrade by hand, count frames only) are the same
code in both runs. Frames are ~100 bytes, as in the research runs (architecture.md §0).
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

import websockets
from websockets.asyncio.server import ServerConnection, serve

from benchmarks.common import HOST, ClientFleet, Result, RunningHub, pin_server, scratch, tt_venue
from benchmarks.common import sizes as pick_sizes
from hub.feed.fanout import encode

NAME = "fanout"
FULL = {"clients": 1000, "warmup_s": 1.5, "window_s": 8.0, "frame_bytes": 100, "client_processes": 1}
SMOKE = {"clients": 20, "warmup_s": 0.3, "window_s": 1.0, "frame_bytes": 100, "client_processes": 1}
TOPIC = "match:M1-T1"


def _payload(frame_bytes: int) -> dict[str, Any]:
    base = len(encode(TOPIC, 1_000_000, {"x": ""}))
    return {"x": "x" * max(0, frame_bytes - base)}


async def _measure(
    port: int, clients: int, warmup_s: float, window_s: float, processes: int, publish
) -> dict:
    fleet = ClientFleet(port, [[TOPIC]] * clients, "count", processes=processes)
    try:
        ready, failed = await fleet.start()
        stop = asyncio.Event()
        publisher = asyncio.get_running_loop().create_task(publish(stop))
        t0 = time.time() + warmup_s
        t1 = t0 + window_s
        await fleet.window(t0, t1)
        await asyncio.sleep(max(0.0, t0 - time.time()))
        cpu0 = os.times()
        wall0 = time.time()
        await asyncio.sleep(max(0.0, t1 - time.time()))
        cpu1 = os.times()
        cpu = (cpu1.user + cpu1.system - cpu0.user - cpu0.system) / (time.time() - wall0)
        results = await fleet.results(within=30)
        stop.set()
        await publisher
        frames = sum(r["frames"] for r in results)
        return {
            "ready": ready,
            "failed": failed,
            "frames_per_s": frames / window_s,
            "server_cpu": cpu,
            "closed": sum(r["closed"] for r in results),
        }
    finally:
        await fleet.close()


async def _ours(sizes: dict[str, Any], *, windows: bool = True) -> dict:
    with scratch(NAME) as data:
        hub = RunningHub(tt_venue(1), data)
        await hub.start()
        fanout = hub.runtime.fanout
        if not windows:  # every change written to every client on its own, as broadcast() does
            fanout.writes_per_s = float("inf")
        payload = _payload(sizes["frame_bytes"])

        async def publish(stop: asyncio.Event) -> None:
            version = 1_000_000
            i = 0
            while not stop.is_set():
                version += 1
                fanout.publish(TOPIC, version, payload)
                i += 1
                if i % 16 == 0 and fanout.behind:  # held back (more than the baseline): while any is behind
                    await asyncio.sleep(0.001)
                    continue
                await asyncio.sleep(0)

        try:
            result = await _measure(
                hub.port,
                sizes["clients"],
                sizes["warmup_s"],
                sizes["window_s"],
                sizes["client_processes"],
                publish,
            )
            assert hub.ctx is not None
            result["closed_stuck"] = hub.ctx.closed_stuck
            result["published"] = fanout.published
            return result
        finally:
            await hub.stop()


async def _baseline(sizes: dict[str, Any]) -> dict:
    payload = _payload(sizes["frame_bytes"])
    connections: set[ServerConnection] = set()

    async def handler(ws: ServerConnection) -> None:
        connections.add(ws)
        try:
            await ws.send(encode(TOPIC, 1, payload, snapshot=True))
            await ws.wait_closed()
        finally:
            connections.discard(ws)

    async def publish(stop: asyncio.Event) -> None:
        version = 1_000_000
        i = 0
        while not stop.is_set():
            version += 1
            websockets.broadcast(connections, encode(TOPIC, version, payload))
            i += 1
            if i % 16 == 0 and connections:
                sample = next(iter(connections))
                if sample.transport.get_write_buffer_size() > 256 * 1024:
                    await asyncio.sleep(0.001)
                    continue
            await asyncio.sleep(0)

    async with serve(handler, HOST, 0, compression=None, ping_interval=None, max_size=64 * 1024) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        return await _measure(
            port, sizes["clients"], sizes["warmup_s"], sizes["window_s"], sizes["client_processes"], publish
        )


async def run(smoke: bool) -> Result:
    sizes = pick_sizes(FULL, SMOKE, smoke)
    notes = [pin_server()]
    ours = await _ours(sizes)
    unwindowed = await _ours(sizes, windows=False)
    base = await _baseline(sizes)
    ratio = ours["frames_per_s"] / base["frames_per_s"] if base["frames_per_s"] else 0.0
    return Result(
        name=NAME,
        unit="frames/s",
        ours=ours["frames_per_s"],
        baseline=base["frames_per_s"],
        target="≥ 0.8× baseline",
        passed=ratio >= 0.8,
        sizes=sizes,
        details={
            "ours_clients": ours["ready"],
            "baseline_clients": base["ready"],
            "ours_server_cpu": round(ours["server_cpu"], 2),
            "baseline_server_cpu": round(base["server_cpu"], 2),
            "ours_frames_per_cpu_s": round(ours["frames_per_s"] / max(ours["server_cpu"], 1e-9)),
            "baseline_frames_per_cpu_s": round(base["frames_per_s"] / max(base["server_cpu"], 1e-9)),
            "ours_closed": ours["closed"] + ours["closed_stuck"],
            "ours_without_windows_frames_per_s": round(unwindowed["frames_per_s"]),
            "ours_without_windows_ratio": round(
                unwindowed["frames_per_s"] / max(base["frames_per_s"], 1e-9), 2
            ),
            "baseline_closed": base["closed"],
        },
        notes=notes,
    )
