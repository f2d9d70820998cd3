"""The hostile-load test's attacker, a process of its own so its work never delays the test's measurements.

    python -m tests.reliability.attacker PORT GATEWAY_PORT TOKEN SECONDS

Runs every attack at once against one hub on loopback, each from its own 127.0.0.x address, each bounded in
count and ended after SECONDS; prints one JSON line saying what each attack did and what it got back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import sys
import time
from collections import Counter
from typing import Any

from devices.observations import DeviceHello
from devices.wire.codec import MessageType, encode_frame
from devices.wire.messages import report_to_body

SILENT = {"127.0.0.2": 280, "127.0.0.3": 280, "127.0.0.4": 280, "127.0.0.5": 260}  # 1,100 in all
SLOW_HEADS = 100
GARBAGE = 2000
BIG_BODIES = 10
CHUNKED_BODIES = 5
WRONG_TOKENS = 1000
WEBSOCKET_CHURN = 1000
MB = 1 << 20


async def _open(port: int, source: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))


async def _answer(reader: asyncio.StreamReader, within: float = 10.0) -> bytes:
    """What the hub sends until it closes (or `within` passes, or the connection is reset)."""
    data = b""
    with contextlib.suppress(TimeoutError, OSError):
        async with asyncio.timeout(within):
            while chunk := await reader.read(65536):
                data += chunk
    return data


def _status(answer: bytes) -> str:
    return answer[9:12].decode("latin-1") if answer.startswith(b"HTTP/1.1 ") else "closed"


async def silent_sockets(port: int, until: float) -> dict[str, Any]:
    """1,100 connections that never send a byte, held until the end; how many the hub closed."""
    held: list[socket.socket] = []
    for source, count in SILENT.items():
        for _ in range(count):
            sock = socket.socket()
            sock.bind((source, 0))
            sock.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                sock.connect(("127.0.0.1", port))
            held.append(sock)
        await asyncio.sleep(0.1)
    await asyncio.sleep(max(0.0, until - time.monotonic()))
    closed = sum(_closed(s) for s in held)
    for sock in held:
        sock.close()
    return {"opened": len(held), "closed_by_hub": closed}


def _closed(sock: socket.socket) -> bool:
    try:
        while sock.recv(65536):
            pass
        return True
    except BlockingIOError:
        return False
    except OSError:
        return True


async def slow_heads(port: int, until: float) -> dict[str, Any]:
    """100 connections sending a request head one byte every half second."""
    head = b"GET /api/health HTTP/1.1\r\nHost: hall\r\nX-Padding: " + b"a" * 200 + b"\r\n\r\n"

    async def one() -> str:
        try:
            reader, writer = await _open(port, "127.0.0.6")
        except OSError:
            return "refused"
        try:
            for byte in head:
                if time.monotonic() > until or writer.is_closing():
                    break
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(0.5)
        except OSError:
            pass
        answer = await _answer(reader, within=1.0)
        writer.close()
        return _status(answer)

    statuses = await asyncio.gather(*(one() for _ in range(SLOW_HEADS)))
    return {"sent": SLOW_HEADS, "answers": dict(Counter(statuses))}


async def garbage(port: int, until: float) -> dict[str, Any]:
    """2,000 requests that are not HTTP, ten at a time."""
    answers: Counter[str] = Counter()
    gate = asyncio.Semaphore(10)

    async def one() -> None:
        async with gate:
            if time.monotonic() > until:
                return
            try:
                reader, writer = await _open(port, "127.0.0.7")
            except OSError:
                answers["refused"] += 1
                return
            writer.write(b"\x16\x03\x01 NOT HTTP AT ALL\r\n\r\n")
            answers[_status(await _answer(reader, within=5.0))] += 1
            writer.close()

    await asyncio.gather(*(one() for _ in range(GARBAGE)))
    return {"sent": sum(answers.values()), "answers": dict(answers)}


async def big_bodies(port: int, token: str) -> dict[str, Any]:
    """50 MB referee inputs: announced by Content-Length, and streamed in chunks with no length."""
    answers: Counter[str] = Counter()
    head = f"POST /api/matches/M1/inputs HTTP/1.1\r\nHost: hall\r\nAuthorization: Bearer {token}\r\n"
    plain = (f"Content-Length: {50 * MB}\r\n\r\n".encode(), b" " * MB)
    chunked = (b"Transfer-Encoding: chunked\r\n\r\n", b"%x\r\n" % MB + b" " * MB + b"\r\n")
    for framing, piece in [plain] * BIG_BODIES + [chunked] * CHUNKED_BODIES:
        try:
            reader, writer = await _open(port, "127.0.0.8")
        except OSError:
            answers["refused"] += 1
            continue
        writer.write(head.encode() + b"Content-Type: application/json\r\n" + framing)
        with contextlib.suppress(OSError, TimeoutError):
            for _ in range(50):  # as much as the hub takes before it answers and closes
                writer.write(piece)
                await asyncio.wait_for(writer.drain(), 2.0)
        answers[_status(await _answer(reader))] += 1
        writer.close()
    return {"sent": BIG_BODIES + CHUNKED_BODIES, "bytes_offered_each": 50 * MB, "answers": dict(answers)}


async def wrong_tokens(gateway_port: int, device_id: str) -> dict[str, Any]:
    """1,000 device connections with a wrong token, four at a time."""
    _, body = report_to_body(DeviceHello(device_id, "tt-scoreboard", "m", "f", 1, 5))
    hello = encode_frame(MessageType.HELLO, 0, {**body, "token": "not-the-token"})
    answers: Counter[str] = Counter()
    gate = asyncio.Semaphore(4)

    async def one() -> None:
        async with gate:
            try:
                reader, writer = await _open(gateway_port, "127.0.0.9")
                writer.write(hello)
                await writer.drain()
                answer = await _answer(reader, within=5.0)
                writer.close()
            except OSError:
                answer = b""
            answers["unauthorized" if b"unauthorized" in answer else "closed"] += 1

    await asyncio.gather(*(one() for _ in range(WRONG_TOKENS)))
    return {"sent": WRONG_TOKENS, "answers": dict(answers)}


async def websocket_churn(port: int) -> dict[str, Any]:
    """1,000 WebSocket handshakes opened and dropped at once, five at a time."""
    request = (
        b"GET /ws HTTP/1.1\r\nHost: hall\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    answers: Counter[str] = Counter()
    gate = asyncio.Semaphore(5)

    async def one() -> None:
        async with gate:
            try:
                reader, writer = await _open(port, "127.0.0.10")
            except OSError:
                answers["refused"] += 1
                return
            writer.write(request)
            with contextlib.suppress(TimeoutError, OSError):
                async with asyncio.timeout(5):
                    line = await reader.readline()
                    answers[line[9:12].decode("latin-1") or "closed"] += 1
            writer.transport.abort()

    await asyncio.gather(*(one() for _ in range(WEBSOCKET_CHURN)))
    return {"sent": WEBSOCKET_CHURN, "answers": dict(answers)}


async def attack(port: int, gateway_port: int, token: str, seconds: float, device_id: str) -> dict[str, Any]:
    """Every attack at once; what each did."""
    until = time.monotonic() + seconds
    async with asyncio.TaskGroup() as tg:
        tasks = {
            "silent_sockets": tg.create_task(silent_sockets(port, until)),
            "slow_heads": tg.create_task(slow_heads(port, until)),
            "garbage": tg.create_task(garbage(port, until)),
            "big_bodies": tg.create_task(big_bodies(port, token)),
            "wrong_tokens": tg.create_task(wrong_tokens(gateway_port, device_id)),
            "websocket_churn": tg.create_task(websocket_churn(port)),
        }
    return {name: task.result() for name, task in tasks.items()}


if __name__ == "__main__":
    port, gateway_port, token, seconds, device_id = sys.argv[1:6]
    started = time.monotonic()
    report = asyncio.run(attack(int(port), int(gateway_port), token, float(seconds), device_id))
    report["took_s"] = round(time.monotonic() - started, 1)
    print(json.dumps(report), flush=True)
