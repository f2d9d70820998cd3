"""What a connection may hold before it is a request: deadlines, caps, socket options and the process's files.

A phone that opens a socket and says nothing costs the hub a file descriptor for as long as the socket lives.
uvicorn closes an idle keep-alive connection, but never one that has not finished its first request, and the
rate limits in `hub.server.limits` only see finished requests. So, for every HTTP connection (`GuardedHttp`):

- the request (head and body) must arrive within `WebLimits.request_timeout_s` of the accept, or of the end
  of the previous answer on a kept-alive connection; otherwise it gets 408 and is closed;
- while it has not, it is *unfinished*: at most `unfinished_per_address` of them per client address (loopback
  exempt, as for the rate limits) and `unfinished_total` in all. A new one over a cap closes the oldest
  unfinished connection instead of being refused, so a client that sends its request at once (every real
  one) is always served while idle sockets are the ones that go;
- `TCP_NODELAY` is set (see `devices.transports.base.set_nodelay`: without it an answer in two writes
  waited for the client's delayed ACK, 44 ms a keep-alive request);
- uvicorn's own error answers (400 for a request it cannot parse) carry the security headers.

A WebSocket whose handshake the app has not answered within `handshake_timeout_s` is closed (`FeedProtocol`).

At start the hub raises its soft open-files limit to the hard one (`raise_open_files_limit`), and accept errors
(out of descriptors) are logged at most once a second (`quiet_repeats`): asyncio logs one with a traceback per
failed accept, hundreds of megabytes of stderr in a minute under a flood of sockets.
"""

from __future__ import annotations

import asyncio
import logging
import os
import resource
import socket
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from devices.transports.base import LISTEN_QUEUE, set_nodelay
from hub.server.limits import SECURITY_HEADERS, WebLimits

log = logging.getLogger(__name__)

OPEN_FILES_CEILING = 1 << 20  # when the hard limit is "unlimited": what the soft one is raised to
DESCRIPTOR_RESERVE = (
    128  # descriptors kept for the log, devices, answers and sockets accepted but not yet seen
)
STEADY_LOOKS = 2  # looks at the connection count without a fall before an ebb is over
REPEAT_EVERY_S = 1.0  # the same loop error is logged at most once in this time


def break_transport_cycle(transport: Any) -> None:
    """Called from a protocol's `connection_lost`: CPython 3.11's socket transport keeps its read callback as
    a bound method of itself (`_read_ready_cb`), a cycle that leaves every closed connection's transport and
    socket for a full collection (every 100 s here, hub.server.heap). Thousands of phones coming and going then
    held megabytes that the allocator could not give back once freed around newer objects."""
    if getattr(transport, "_read_ready_cb", None) is not None:
        transport._read_ready_cb = None


def plain_answer(status: int, reason: str, message: str) -> bytes:
    """A complete HTTP/1.1 answer that closes the connection, with the security headers, as bytes."""
    body = message.encode("utf-8")
    head = [
        f"HTTP/1.1 {status} {reason}".encode("ascii"),
        b"content-type: text/plain; charset=utf-8",
        b"content-length: " + str(len(body)).encode("ascii"),
        b"connection: close",
        *(name + b": " + value for name, value in SECURITY_HEADERS),
    ]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


class Unfinished:
    """The connections still waiting for their request, oldest first, in all and per client address.

    A cap closes only connections that have waited `WebLimits.evict_after_s`: asyncio accepts a burst of
    connections (a hall's screens coming back after a network blip) before it reads any of their requests,
    and those must not be taken for idle. The process's descriptors are the exception: within
    `DESCRIPTOR_RESERVE` of the limit, the oldest waiting connection goes whatever its age."""

    def __init__(self, limits: WebLimits, refused: Counter[str] | None = None) -> None:
        self.limits = limits
        self.refused: Counter[str] = Counter() if refused is None else refused
        self._all: dict[GuardedHttp, tuple[str, float]] = {}  # insertion-ordered: the first is the oldest
        self._by_address: dict[str, dict[GuardedHttp, None]] = {}
        self.total_cap = limits.unfinished_total
        self.connections_cap = OPEN_FILES_CEILING  # connections of any kind before descriptors run out
        self.elsewhere: Callable[[], int] = lambda: 0  # connections the web server does not hold (devices)
        self.trusted: Callable[[str], bool] = lambda address: False  # reverse proxies: no per-address cap
        self.high_water = 0  # the most connections the server held at once since `ebbed` last said so
        self._held_last_look = 0
        self._steady_looks = 0

    def __len__(self) -> int:
        return len(self._all)

    def fit_to_open_files(self, open_files: int) -> None:
        """Keep the caps under the process's descriptor limit: finished connections and files need some too."""
        self.total_cap = max(16, min(self.limits.unfinished_total, open_files // 4))
        self.connections_cap = max(16, open_files - DESCRIPTOR_RESERVE)

    def add(self, conn: GuardedHttp, address: str, connections: int) -> None:
        """Count `conn` as waiting (again), closing the oldest waiting where a cap would be passed;
        `connections` is how many the server holds now, of every kind."""
        self.discard(conn)
        self.high_water = max(self.high_water, connections)
        now = time.monotonic()
        if address not in self.limits.exempt and not self.trusted(address):  # a proxy pools many clients'
            mine = self._by_address.get(address, {})
            while len(mine) >= self.limits.unfinished_per_address and self._waited(next(iter(mine)), now):
                self._evict(next(iter(mine)), "unfinished_per_address")
        while len(self._all) >= self.total_cap and self._waited(next(iter(self._all)), now):
            self._evict(next(iter(self._all)), "unfinished_total")
        self._all[conn] = (address, now)
        self._by_address.setdefault(address, {})[conn] = None
        connections += self.elsewhere()
        # within the reserve, the oldest waiting goes; when every other connection has its request (kept-alive
        # answers, WebSockets), that is this one: descriptors must never run out (asyncio would stop accepting)
        while self._all and connections >= self.connections_cap:
            self._evict(next(iter(self._all)), "open_files")
            connections -= 1

    def ebbed(self, held: int, by: int) -> bool:
        """True, once, when the server holds `held` connections, `by` or more fewer than at its high-water
        mark, and no fewer than at the two looks before: the ebb is over and what closed connections left
        to the collector is gone too, so what they freed can be given back in one go. Every accept is
        counted here, so a burst between two looks is not missed."""
        self._steady_looks = self._steady_looks + 1 if held >= self._held_last_look else 0
        self._held_last_look = held
        if self._steady_looks < STEADY_LOOKS or self.high_water - held < by:
            return False
        self.high_water = held
        return True

    def _waited(self, conn: GuardedHttp, now: float) -> bool:
        return now - self._all[conn][1] >= self.limits.evict_after_s

    def discard(self, conn: GuardedHttp) -> None:
        """`conn` is no longer waiting (its request came, or it closed)."""
        entry = self._all.pop(conn, None)
        if entry is None:
            return
        mine = self._by_address[entry[0]]
        del mine[conn]
        if not mine:
            del self._by_address[entry[0]]

    def _evict(self, conn: GuardedHttp, limit: str) -> None:
        self.discard(conn)
        self.refused[limit] += 1
        conn.transport.abort()  # nothing to say to a socket that has said nothing; its descriptor is free now

    def health(self) -> dict[str, int]:
        """For /api/health: how many wait now, the caps."""
        return {
            "unfinished": len(self._all),
            "unfinished_addresses": len(self._by_address),
            "cap_total": self.total_cap,
            "cap_per_address": self.limits.unfinished_per_address,
            "cap_connections": self.connections_cap,
        }


class GuardedHttp(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a deadline for each request and a place among the unfinished."""

    def __init__(self, *args: Any, unfinished: Unfinished, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.unfinished = unfinished
        self.deadline: asyncio.TimerHandle | None = None

    # uvicorn's own signature is typed against its base class as narrower than asyncio's: the same here
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Accept as uvicorn does; start the first request's clock."""
        super().connection_made(transport)
        set_nodelay(transport)
        self._wait_for_request()

    def connection_lost(self, exc: Exception | None) -> None:
        """Forget the connection."""
        self._request_arrived()
        super().connection_lost(exc)
        break_transport_cycle(self.transport)

    def handle_events(self) -> None:
        """Read as uvicorn does; once the whole request is in, it is no longer unfinished."""
        super().handle_events()
        if self.deadline is not None and self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED):
            self._request_arrived()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        """The request was an upgrade: from here the WebSocket protocol keeps its own time."""
        self._request_arrived()
        super().handle_websocket_upgrade(event)

    def on_response_complete(self) -> None:
        """Answered: a kept-alive connection waits for its next request on a fresh clock."""
        if not self.transport.is_closing():
            self._wait_for_request()
        super().on_response_complete()

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a request it cannot parse, with the security headers."""
        self._close_with(400, "Bad Request", f"{msg} / geçersiz HTTP isteği")

    def _wait_for_request(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
        self.deadline = self.loop.call_later(self.unfinished.limits.request_timeout_s, self._too_slow)
        self.unfinished.add(self, self.client[0] if self.client else "unknown", len(self.connections))

    def _request_arrived(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None
        self.unfinished.discard(self)

    def _too_slow(self) -> None:
        self.deadline = None
        self.unfinished.discard(self)
        if self.transport.is_closing():
            return
        self.unfinished.refused["request_timeout"] += 1
        if self.cycle is not None and self.cycle.response_started and not self.cycle.response_complete:
            self.transport.close()  # an answer is under way: it cannot be changed into a 408
            return
        seconds = self.unfinished.limits.request_timeout_s
        self._close_with(
            408,
            "Request Timeout",
            f"the request did not arrive within {seconds:g} s / istek {seconds:g} saniye içinde gelmedi",
        )

    def _close_with(self, status: int, reason: str, message: str) -> None:
        self.transport.write(plain_answer(status, reason, message))
        self.transport.close()


def deepen_listen_queues(servers: list[asyncio.Server]) -> None:
    """Let the kernel queue `LISTEN_QUEUE` connections on each listening socket while the loop accepts
    `ACCEPT_BATCH` per turn (asyncio uses one number for both; `listen` again sets only the queue)."""
    for server in servers:
        for sock in server.sockets:
            with socket.socket(fileno=os.dup(sock.fileno())) as same:
                same.listen(LISTEN_QUEUE)


def raise_open_files_limit() -> tuple[int, int]:
    """Raise the soft open-files limit to the hard one; return (soft, hard) as they are now.

    Each spectator holds a descriptor; the usual soft limit of 1,024 is a few hundred phones and screens."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = OPEN_FILES_CEILING if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError) as exc:  # a container may cap it below what it reports
            log.warning("could not raise the open-files limit from %d to %d: %s", soft, wanted, exc)
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def open_files() -> dict[str, int]:
    """For /api/health: descriptors open now and the limits."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        count = len(os.listdir("/proc/self/fd"))
    except OSError:  # not Linux: the count is not to be had cheaply
        count = -1
    return {"open": count, "limit": soft, "hard_limit": hard}


class Repeats:
    """Lets each kind of message through at most once per `every_s`, and counts the ones held back."""

    def __init__(self, every_s: float = REPEAT_EVERY_S) -> None:
        self.every_s = every_s
        self._last: dict[str, float] = {}
        self._held: Counter[str] = Counter()
        self.total: Counter[str] = Counter()

    def allow(self, kind: str) -> int | None:
        """None to hold this one back; else how many of its kind were held back since the last let through."""
        self.total[kind] += 1
        now = time.monotonic()
        if now - self._last.get(kind, -self.every_s) < self.every_s:
            self._held[kind] += 1
            return None
        self._last[kind] = now
        return self._held.pop(kind, 0)


def _held_back(count: int, every_s: float) -> str:
    return f" (and {count} more like it in the last {every_s:g} s)" if count else ""


class QuietRepeats(Repeats):
    """A loop exception handler that logs each kind of error at most once a second, with a count.

    asyncio logs "socket.accept() out of system resource" with a traceback for every accept that fails for
    want of descriptors; under a flood of sockets that was a quarter of a gigabyte of stderr in 40 seconds."""

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """Log this error unless the same kind was logged less than a second ago."""
        kind = str(context.get("message", "?"))
        held = self.allow(kind)
        if held is None:
            return
        if self.total[kind] == 1:  # the first of its kind in full, traceback and all
            loop.default_exception_handler(context)
            return
        exc = context.get("exception")
        detail = f": {type(exc).__name__}: {exc}" if exc is not None else ""
        log.error("%s%s%s", kind, detail, _held_back(held, self.every_s))


class RepeatFilter(logging.Filter):
    """A logging filter that lets each message through at most once a second, with a count: uvicorn warns
    once per request it cannot parse, so a client sending garbage would otherwise write a line per try."""

    def __init__(self) -> None:
        super().__init__()
        self.repeats = Repeats()

    def filter(self, record: logging.LogRecord) -> bool:
        """False for a repeat within the second."""
        held = self.repeats.allow(f"{record.name}:{record.msg}")
        if held is None:
            return False
        if held:
            record.msg, record.args = record.getMessage() + _held_back(held, self.repeats.every_s), ()
        return True


def quiet_repeats(loop: asyncio.AbstractEventLoop) -> QuietRepeats:
    """Log repeated loop errors and uvicorn's repeated warnings at most once a second each."""
    handler = QuietRepeats()
    loop.set_exception_handler(handler)
    server_log = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, RepeatFilter) for f in server_log.filters):
        server_log.addFilter(RepeatFilter())
    return handler
