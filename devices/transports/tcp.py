"""The TCP device gateway: Wi-Fi devices connect to the hub and prove who they are before anything else.

A device opens a TCP connection and sends, as its first frame, a HELLO that carries its `token`. The
gateway checks the token against the SHA-256 the venue file holds for that device id (in constant time),
consumes that HELLO so the token is never stored, and hands the rest of the byte stream to the device's
session through `opener(device_id)`. An unknown device, a wrong or missing token, or a first frame that is
not a HELLO gets an ERROR frame and a closed connection, and is reported to `on_refused`.

A client that keeps trying must not fill the event log: from one host, the first refusal in a minute is
reported at once and the rest of that minute's are counted and reported as one (`Refusal.count`), when the
minute is over; each reason has its own count. Connections that have not proved who they are yet are capped per host and in all; past a cap
a new one is closed at once and counted.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import hashlib
import hmac
import logging
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from devices.transports.base import ACCEPT_BATCH, LISTEN_QUEUE, ByteReader, ByteWriter, Opener, set_nodelay
from devices.wire.codec import MAX_ENCODED, Frame, MessageType, decode_frame, encode_frame
from devices.wire.messages import BodyError, decode_hello

log = logging.getLogger(__name__)

HELLO_TIMEOUT_S = 10.0
REPORT_EVERY_S = 60.0  # refusals from one host: one report a minute at most, with their count
UNPROVEN_PER_HOST = 8  # connections not past their HELLO yet, per host ...
UNPROVEN_TOTAL = 256  # ... and in all
MAX_TALLIES = 4096  # hosts whose refusals are being counted; past this the oldest are reported early


class RefusalReason(enum.StrEnum):
    """Why the gateway turned a connection away."""

    NO_HELLO = "no_hello"
    TOO_MANY = "too_many"
    UNKNOWN_DEVICE = "unknown_device"
    MISSING_TOKEN = "missing_token"
    WRONG_TOKEN = "wrong_token"


@dataclass(frozen=True, slots=True)
class Refusal:
    """A connection the gateway refused: from where, claiming which device, and why."""

    peer: str
    device_id: str | None
    reason: RefusalReason
    detail: str
    at: float
    count: int = (
        1  # refusals from this peer's host for this reason this report stands for (the last described)
    )


@dataclass(slots=True)
class _Tally:
    """Refusals from one host since its last report."""

    since: float
    pending: int = 0
    last: Refusal | None = None


def parse_tcp_url(url: str) -> tuple[str, int]:
    """The listen address of a `tcp://HOST:PORT` device URL; raise ValueError naming the URL for anything else.

    Nothing may follow HOST:PORT (a path, `?options`, `#`): the gateway would ignore it, and the hub keeps one
    gateway per URL text, so `tcp://h:7000/` beside `tcp://h:7000` would try to listen twice.
    """
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:  # not a number, or above 65535
        port = None
    if parts.scheme != "tcp" or not parts.hostname or port is None or not 0 < port < 65536:
        raise ValueError(f"{url!r} is not a TCP gateway address such as tcp://0.0.0.0:7000")
    if parts.path or "?" in url or "#" in url or "@" in parts.netloc:
        raise ValueError(f"{url!r}: a TCP gateway address takes nothing but HOST:PORT, as tcp://0.0.0.0:7000")
    return parts.hostname, port


def token_digest(token: str) -> str:
    """The SHA-256 a venue file stores for a device token."""
    return hashlib.sha256(token.encode()).hexdigest()


class _PrefixedReader:
    """A reader that first returns bytes the gateway already read past the HELLO."""

    def __init__(self, prefix: bytes, reader: asyncio.StreamReader) -> None:
        self._prefix = prefix
        self._reader = reader

    async def read(self, n: int = -1) -> bytes:
        """Up to n bytes; b"" once the connection is closed."""
        if self._prefix:
            take = len(self._prefix) if n < 0 else n
            data, self._prefix = self._prefix[:take], self._prefix[take:]
            return data
        return await self._reader.read(n)


class TcpGateway:
    """One listening socket for many devices; each device's session waits on `opener(device_id)`."""

    def __init__(
        self,
        host: str,
        port: int,
        tokens: dict[str, str],
        *,
        on_refused: Callable[[Refusal], None] | None = None,
        hello_timeout: float = HELLO_TIMEOUT_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.host, self.port = host, port
        self._tokens = dict(tokens)  # device id -> SHA-256 of its token
        self._on_refused = on_refused
        self._hello_timeout = hello_timeout
        self._clock = clock
        self._waiting: dict[str, asyncio.Queue[tuple[ByteReader, ByteWriter]]] = {}
        self._current: dict[str, asyncio.StreamWriter] = {}
        self._server: asyncio.Server | None = None
        self._socket: socket.socket | None = None
        self.accepted = 0
        self.refused: list[Refusal] = []  # the last 100 reported
        self.refused_total = 0  # every refusal, reported or counted
        self._tallies: dict[tuple[str, RefusalReason], _Tally] = {}  # by host and reason, oldest first
        self._unproven: dict[str, int] = {}  # connections before their HELLO, by host
        self.unproven_total = UNPROVEN_TOTAL  # the hub lowers it to fit its open-files limit

    @property
    def url(self) -> str:
        """The gateway's address as written in a venue file."""
        return f"tcp://{self.host}:{self.port}"

    def bind(self) -> None:
        """Take the listening port now, so a taken port fails before anything runs."""
        if self._socket is None:
            try:
                self._socket = socket.create_server((self.host, self.port))
            except OSError as exc:
                raise OSError(
                    exc.errno, f"the device gateway cannot listen on {self.url}: {exc.strerror or exc}"
                ) from exc
            self.port = self._socket.getsockname()[1]

    async def start(self) -> None:
        """Listen; raises OSError if the port is taken."""
        self.bind()
        self._server = await asyncio.start_server(self._handle, sock=self._socket, backlog=ACCEPT_BATCH)
        assert self._socket is not None
        self._socket.listen(LISTEN_QUEUE)  # the queue deep again; asyncio keeps taking ACCEPT_BATCH a turn

    async def serve(self) -> None:
        """Accept devices until cancelled; report counted refusals once their minute is over."""
        if self._server is None:
            await self.start()
        assert self._server is not None
        try:
            async with asyncio.TaskGroup() as tg:
                tg.create_task(self._report_counted())
                await self._server.serve_forever()
        finally:
            self._server.close()
            for writer in self._current.values():
                writer.close()

    def unproven(self) -> int:
        """Connections that have not said HELLO yet."""
        return sum(self._unproven.values())

    def open_connections(self) -> int:
        """Descriptors the gateway's connections hold now: those waiting for their HELLO and the devices'."""
        return self.unproven() + len(self._current)

    def opener(self, device_id: str) -> Opener:
        """An opener for a DeviceSession: waits until this device connects and proves its token."""
        if device_id not in self._tokens:
            raise ValueError(f"device {device_id!r} has no token for the gateway at {self.url}")
        queue = self._waiting.setdefault(device_id, asyncio.Queue(maxsize=1))

        async def open_() -> tuple[ByteReader, ByteWriter]:
            return await queue.get()

        return open_

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = _peer(writer)
        host = _host(peer)
        if self._unproven.get(host, 0) >= UNPROVEN_PER_HOST or self.unproven() >= self.unproven_total:
            writer.transport.abort()  # says nothing yet: an answer would only hold the descriptor longer
            self._count_refusal(
                Refusal(
                    peer,
                    None,
                    RefusalReason.TOO_MANY,
                    "too many connections from this host have yet to say HELLO",
                    self._clock(),
                )
            )
            return
        set_nodelay(writer)  # acks and commands go out at once
        self._unproven[host] = self._unproven.get(host, 0) + 1
        try:
            await self._prove(reader, writer, peer)
        finally:
            left = self._unproven.pop(host) - 1
            if left:
                self._unproven[host] = left

    async def _prove(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, peer: str) -> None:
        """Read the HELLO and check its token; hand the connection to its device's session, or refuse it."""
        try:
            async with asyncio.timeout(self._hello_timeout):
                frame_bytes, rest = await _first_frame(reader)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, _TooLong):
            await self._refuse(writer, peer, None, RefusalReason.NO_HELLO, "no HELLO frame in time")
            return
        frame = decode_frame(frame_bytes)
        if not isinstance(frame, Frame) or frame.type is not MessageType.HELLO:
            what = frame.kind.value if not isinstance(frame, Frame) else frame.type.name
            await self._refuse(
                writer, peer, None, RefusalReason.NO_HELLO, f"first frame was {what}, not HELLO"
            )
            return
        try:
            hello = decode_hello(frame.body)
        except BodyError as exc:
            await self._refuse(writer, peer, None, RefusalReason.NO_HELLO, str(exc))
            return
        device_id = hello.device_id
        expected = self._tokens.get(device_id)
        token = frame.body.get("token") if isinstance(frame.body, dict) else None
        if expected is None:
            await self._refuse(writer, peer, device_id, RefusalReason.UNKNOWN_DEVICE, "not in the venue file")
            return
        if not isinstance(token, str) or not token:
            await self._refuse(writer, peer, device_id, RefusalReason.MISSING_TOKEN, "HELLO carried no token")
            return
        if not hmac.compare_digest(token_digest(token), expected):
            await self._refuse(writer, peer, device_id, RefusalReason.WRONG_TOKEN, "token does not match")
            return
        previous = self._current.pop(device_id, None)
        if previous is not None:  # the device came back on a new connection; the old one is dead
            previous.close()
        queue = self._waiting.setdefault(device_id, asyncio.Queue(maxsize=1))
        if queue.full():  # a connection nobody took yet: the newer one wins
            _, stale = queue.get_nowait()
            stale.close()
        self._current[device_id] = writer
        self.accepted += 1
        queue.put_nowait((_PrefixedReader(rest, reader), writer))

    async def _refuse(
        self,
        writer: asyncio.StreamWriter,
        peer: str,
        device_id: str | None,
        reason: RefusalReason,
        detail: str,
    ) -> None:
        self._count_refusal(Refusal(peer, device_id, reason, detail, self._clock()))
        with contextlib.suppress(Exception):
            writer.write(encode_frame(MessageType.ERROR, 0, {"code": "unauthorized", "detail": reason.value}))
            async with asyncio.timeout(1.0):
                await writer.drain()
        writer.close()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(1.0):
                await writer.wait_closed()

    def _count_refusal(self, refusal: Refusal) -> None:
        """Report the first refusal from a host for a reason in a minute; count the others for one report."""
        self.refused_total += 1
        key = (_host(refusal.peer), refusal.reason)
        tally = self._tallies.pop(key, None)
        if tally is not None and refusal.at - tally.since < REPORT_EVERY_S:
            tally.pending += 1
            tally.last = refusal
            self._tallies[key] = tally
            return
        if tally is not None:
            self._report_tally(tally)
        if len(self._tallies) >= MAX_TALLIES:  # the oldest, reported early, keep memory bounded
            self._report_tally(self._tallies.pop(next(iter(self._tallies))))
        self._tallies[key] = _Tally(refusal.at)
        self._report(refusal)

    def report_counted(self, now: float | None = None) -> None:
        """Report, as one each, the refusals counted from hosts whose minute is over."""
        now = self._clock() if now is None else now
        for key, tally in list(self._tallies.items()):
            if now - tally.since >= REPORT_EVERY_S:
                del self._tallies[key]
                self._report_tally(tally)

    async def _report_counted(self) -> None:
        while True:
            await asyncio.sleep(REPORT_EVERY_S / 4)
            self.report_counted()

    def _report_tally(self, tally: _Tally) -> None:
        if tally.pending and tally.last is not None:
            self._report(replace(tally.last, count=tally.pending))

    def _report(self, refusal: Refusal) -> None:
        self.refused = [*self.refused[-99:], refusal]
        log.warning(
            "gateway %s refused %s (%s): %s: %s%s",
            self.url,
            refusal.peer,
            refusal.device_id,
            refusal.reason.value,
            refusal.detail,
            f" ({refusal.count} times from this host in the last minute)" if refusal.count > 1 else "",
        )
        if self._on_refused is not None:
            self._on_refused(refusal)


class _TooLong(Exception):
    """No delimiter within the longest frame there can be."""


async def _first_frame(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    """The first frame's bytes (delimiter included) and whatever was read after it."""
    buffer = b""
    while True:
        chunk = await reader.read(4096)
        if not chunk:
            raise asyncio.IncompleteReadError(buffer, None)
        buffer = (buffer + chunk).lstrip(b"\x00")  # idle fill before the first frame
        end = buffer.find(b"\x00")
        if end >= 0:
            return buffer[: end + 1], buffer[end + 1 :]
        if len(buffer) > MAX_ENCODED:
            raise _TooLong


def _host(peer: str) -> str:
    """The address part of a `host:port` peer."""
    return peer.rsplit(":", 1)[0]


def _peer(writer: asyncio.StreamWriter) -> str:
    address = writer.get_extra_info("peername")
    return f"{address[0]}:{address[1]}" if isinstance(address, tuple) else str(address)
