"""The `/ws` connection as uvicorn runs it, with a door for the fan-out to write finished frames itself.

uvicorn's sans-I/O WebSocket protocol (on the websockets library's `ServerProtocol`) does the handshake,
reads client frames, answers pings and closes; the ASGI app still decides whether to accept and reads the
client's requests. What ASGI cannot do is let one encoded change be written to thousands of sockets
without a task and an encode per client: `FeedProtocol` puts itself in the connection's scope under
`LINK` so `hub.feed.fanout` can call `send_frames` directly (see `hub.feed.fanout.Link`).
"""

from __future__ import annotations

import asyncio
import functools
import http
import random
import time
from collections import deque
from collections.abc import Callable
from typing import Any
from wsgiref.handlers import format_date_time

import uvicorn
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.datastructures import Headers
from websockets.extensions.permessage_deflate import PerMessageDeflate, ServerPerMessageDeflateFactory
from websockets.http11 import Request, Response
from websockets.server import ServerProtocol

from devices.transports.base import ACCEPT_BATCH
from hub.feed.fanout import DEFLATE_BITS
from hub.server.allocator import BURST_CONNECTIONS
from hub.server.connections import GuardedHttp, Unfinished, break_transport_cycle, deepen_listen_queues
from hub.server.limits import SECURITY_HEADERS, WebLimits

LINK = "boardcast.link"  # the scope extension naming the connection's FeedProtocol
PING_SPREAD = 0.2  # each keepalive ping waits the interval ± this share of it


def keepalive_delay(interval: float, last_rtt: float, draw: float) -> float:
    """Seconds to the next keepalive ping: the interval less the last round trip (as uvicorn waits), spread by
    `draw` (0..1) over ±`PING_SPREAD`. Connections accepted together (a hall's screens reconnecting after a
    network blip, a benchmark's readers) would otherwise ping together every interval: 1,000 pings and their
    pongs in a few milliseconds held every frame behind them, the readers' worst 1 % in the phase they fell in."""
    return max(0.0, interval * (1.0 + PING_SPREAD * (2.0 * draw - 1.0)) - last_rtt)


class _Handshakes(ServerProtocol):
    """The websockets library's server side, whose refusals of a bad handshake carry the security headers,
    and whose acceptance does not format a date through `datetime` for every handshake."""

    def accept(self, request: Request) -> Response:
        """The library's acceptance: its own checks and refusals, a 101 with its headers.

        The library dates each 101 with `email.utils.formatdate`, whose `datetime.timetuple` leaves a few
        small blocks behind on CPython 3.11; uvicorn replaces that header with its own, formatted once a
        second. Measured: after a burst of 2,000 handshakes those blocks sat on ~1,600 pages of the burst's
        memory, which then could not be given back (the hub stayed ~8 MB, 20 %, above its start; with the
        date formatted from `time.gmtime` instead, 3 MB, 7 %)."""
        try:
            accept_header, extensions_header, protocol_header = self.process_request(request)
        except Exception:  # a refusal: the library's, worded as it words them
            return super().accept(request)
        self.accept_called = True
        headers = Headers()
        headers["Date"] = format_date_time(time.time())  # replaced by uvicorn's (see above)
        headers["Upgrade"] = "websocket"
        headers["Connection"] = "Upgrade"
        headers["Sec-WebSocket-Accept"] = accept_header
        if extensions_header is not None:
            headers["Sec-WebSocket-Extensions"] = extensions_header
        if protocol_header is not None:
            headers["Sec-WebSocket-Protocol"] = protocol_header
        return Response(101, "Switching Protocols", headers)

    def reject(self, status: Any, text: str) -> Response:
        """The library's refusal (plain text, then close), dated as `accept` dates its 101, with the headers
        every answer of the hub carries: a hall's phones refused by the rate limits come in bursts too."""
        body = text.encode()
        reason = http.HTTPStatus(status)
        headers = Headers(
            [
                ("Date", format_date_time(time.time())),
                ("Connection", "close"),
                ("Content-Length", str(len(body))),
                ("Content-Type", "text/plain; charset=utf-8"),
            ]
        )
        for name, value in SECURITY_HEADERS:
            headers[name.decode("ascii")] = value.decode("ascii")
        return Response(reason.value, reason.phrase, headers, body)


class FeedProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, plus the fan-out's direct write path and a deadline for the handshake."""

    def __init__(self, *args: Any, handshake_timeout_s: float | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.handshake_timeout_s = handshake_timeout_s
        self.handshake_deadline: asyncio.TimerHandle | None = None
        # permessage-deflate without context takeover either way: a message compressed once is valid for
        # every client, and no connection keeps a compressor (tens of KiB each) alive between messages
        self.conn = _Handshakes(
            extensions=[
                ServerPerMessageDeflateFactory(
                    server_no_context_takeover=True,
                    client_no_context_takeover=True,
                    compress_settings={"memLevel": 5},
                )
            ],
            max_size=self.config.ws_max_size,
            logger=self.conn.logger,
        )
        self.queue = _Inbox()  # type: ignore[assignment]  # uvicorn's asyncio.Queue, a third the size

    def connection_made(self, transport: Any) -> None:
        """Take the connection as uvicorn does; the app must answer its handshake in time."""
        super().connection_made(transport)
        if self.handshake_timeout_s is not None:
            self.handshake_deadline = self.loop.call_later(self.handshake_timeout_s, self._handshake_overdue)

    def connection_lost(self, exc: Exception | None) -> None:
        """Close as uvicorn does, and leave nothing of the connection in a reference cycle.

        A closed connection's objects would otherwise wait for a full collection (every 100 s, hub.server.heap):
        the scope names this protocol (LINK) and the library's parser, a suspended generator, holds its
        protocol. Under thousands of phones coming and going, memory they held waited with them, and the
        allocator could not give back what was freed later around the survivors."""
        if self.handshake_deadline is not None:
            self.handshake_deadline.cancel()
            self.handshake_deadline = None
        super().connection_lost(exc)
        scope: Any = getattr(self, "scope", None)
        if scope is not None:
            scope["extensions"].pop(LINK, None)
        self.conn.parser.close()  # the parser's frame held the library's protocol, which holds the parser
        break_transport_cycle(self.transport)

    def _handshake_overdue(self) -> None:
        self.handshake_deadline = None
        if not self.handshake_complete and not self.transport.is_closing():
            self.transport.abort()

    def schedule_ping(self) -> None:
        """uvicorn's keepalive, each wait drawn within ±`PING_SPREAD` of the interval (see `keepalive_delay`)."""
        assert self.ping_interval is not None
        delay = keepalive_delay(self.ping_interval, self.last_ping_rtt, random.random())
        self.ping_timer = self.loop.call_later(delay, self.send_keepalive_ping)

    def forget_handshake(self) -> None:
        """Drop what only the handshake needed (request and response headers): thousands of idle phones
        each hold a connection for hours, so a few KiB each is most of the hub's memory."""
        # uvicorn types both as always set; after the handshake nothing reads them again
        self.request = None  # type: ignore[assignment]
        self.response = None  # type: ignore[assignment]
        scope: Any = getattr(self, "scope", None)
        if scope is not None:
            scope["headers"] = []

    @property
    def deflate(self) -> bool:
        """True when this client takes messages compressed on their own with our window."""
        return any(
            isinstance(ext, PerMessageDeflate)
            and ext.local_no_context_takeover
            and ext.local_max_window_bits >= DEFLATE_BITS
            for ext in self.conn.extensions
        )

    def handle_connect(self, event: Request) -> None:
        """Accept the handshake as uvicorn does, and offer this connection to the app as a link."""
        super().handle_connect(event)
        scope: Any = getattr(self, "scope", None)
        if scope is not None:  # None when the handshake itself was refused
            scope["extensions"][LINK] = self

    def send_frames(self, data: bytes) -> None:
        """Write finished WebSocket frames, unless the connection is closing."""
        if not self.close_sent and not self.transport.is_closing():
            self.transport.write(data)

    def buffered(self) -> int:
        """Bytes written but not yet taken by the socket."""
        return self.transport.get_write_buffer_size()

    def close_stuck(self, code: int, reason: str) -> None:
        """Close a client that stopped reading: a close frame it will likely never read, then the socket."""
        if self.close_sent or self.transport.is_closing():
            return
        self.conn.send_close(code, reason)
        self.close_sent = True
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.transport.abort()  # what it has not taken is dropped now: its memory comes back at once


class _Inbox:
    """The client messages uvicorn hands the app: what an `asyncio.Queue` does here, with one deque."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: deque[Any] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: Any) -> None:
        """Add a message and wake the reader."""
        self._items.append(item)
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def get(self) -> Any:
        """The next message, waiting for one."""
        while not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.popleft()

    def empty(self) -> bool:
        """True when no message waits."""
        return not self._items


def server_config(app: Any, unfinished: Unfinished | None = None, **options: Any) -> uvicorn.Config:
    """uvicorn's configuration for a Boardcast web app: HTTP on `GuardedHttp` (each request's deadline, the
    caps on `unfinished` connections), `/ws` on `FeedProtocol`."""
    unfinished = unfinished if unfinished is not None else Unfinished(WebLimits())
    options.setdefault(
        "proxy_headers", False
    )  # X-Forwarded-For only from the venue's trusted proxies (Guard)
    options.setdefault("backlog", ACCEPT_BATCH)  # per turn of the loop; `announce_started` deepens the queue
    # uvicorn types `http` and `ws` as a protocol class or its name; a partial of a class builds the same
    return uvicorn.Config(
        app,
        http=functools.partial(GuardedHttp, unfinished=unfinished),  # type: ignore[arg-type]
        ws=functools.partial(FeedProtocol, handshake_timeout_s=unfinished.limits.handshake_timeout_s),  # type: ignore[arg-type]
        ws_max_size=64 * 1024,
        log_level="warning",
        lifespan="off",
        **options,
    )


def burst_gone(server: uvicorn.Server, unfinished: Unfinished) -> Callable[[], bool]:
    """A check that is true, once each time, when `BURST_CONNECTIONS` or more of the server's connections
    have gone since the most it held at once (for `hub.server.heap.give_back_after_bursts`)."""
    held = server.server_state.connections
    return lambda: unfinished.ebbed(len(held), BURST_CONNECTIONS)


async def announce_started(server: uvicorn.Server, ready: asyncio.Event) -> None:
    """Set `ready` once uvicorn serves (it offers a flag, not an event), its listening queues deepened."""
    while not server.started:  # noqa: ASYNC110
        await asyncio.sleep(0.02)
    deepen_listen_queues(server.servers)
    ready.set()
