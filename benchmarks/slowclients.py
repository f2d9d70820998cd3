"""The slow-client benchmark's slow clients: one process, started once, that connects sets of clients that
never read after their snapshot. Kept apart from `benchmarks.slow_client` so it starts without importing the
hub. Line-JSON on stdin/stdout, one reply line per command:

1. ``{"host", "port", "cpu"}``: pin to the CPU; replies ``{"ready": true}``.
2. ``{"connect": [[topic, ...], ...], "within": s}``: connect one client per list of topics, each subscribes
   (in batches, as the pages do), takes its snapshot, then never reads again (`benchmarks.wsclient`'s "silent"
   clients: a 4 KiB receive buffer, reading paused); replies ``{"connected": n, "failed": k}``.
3. ``{"drop": true}``: close every socket of the current set; replies ``{"dropped": n}``.
4. stdin closed: exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from typing import Any

import orjson

from benchmarks.wsclient import KEY, Client, Fleet, _connect


async def main() -> None:
    """Read commands on stdin and answer each with one line."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    config = orjson.loads(await reader.readline())
    if config.get("cpu") is not None:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {config["cpu"]})
    host, port = config["host"], config["port"]
    request = (  # as benchmarks.wsclient asks (its `_connect` does the rest)
        f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {KEY.decode()}\r\nSec-WebSocket-Version: 13\r\n"
        "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n"
    ).encode()
    _reply({"ready": True})
    clients: list[Client] = []
    while line := await reader.readline():
        command = orjson.loads(line)
        if "connect" in command:
            fleet = Fleet("silent")
            fleet.batch = True
            done = await asyncio.gather(
                *(
                    asyncio.wait_for(_connect(loop, fleet, host, port, request, topics), command["within"])
                    for topics in command["connect"]
                ),
                return_exceptions=True,
            )
            clients = [c for c in done if not isinstance(c, BaseException)]
            _reply({"connected": len(clients), "failed": len(done) - len(clients)})
        elif command.get("drop"):
            for client in clients:
                if client.transport is not None:
                    client.transport.abort()
            _reply({"dropped": len(clients)})
            clients = []


def _reply(message: dict[str, Any]) -> None:
    sys.stdout.write(orjson.dumps(message).decode() + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    asyncio.run(main())
