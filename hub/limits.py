"""What the web edge lets one client do: request and connection rates, open feeds, cross-site posts, headers.

`Guard` is plain ASGI middleware in front of the whole app. Per client address it keeps a token bucket for
HTTP requests and one for WebSocket connections, and a count of open WebSockets; a client over a limit gets
HTTP 429 with `Retry-After` and a JSON body that names the limit (a WebSocket handshake too, when the server
can answer one with HTTP; otherwise the connection is closed with 1013 "try again later"). Other clients
never wait on it: the check is a dictionary look-up before the app runs.

Console actions are safe from cross-site request forgery because they take a Bearer token from the
`Authorization` header and nothing from cookies (a form on another site cannot set that header); the guard
also refuses any state-changing request whose `Origin` or `Sec-Fetch-Site` says it came from another site.
Every HTTP answer carries the security headers in `SECURITY_HEADERS`.

Loopback clients are exempt from the rate limits by default: they are the operator's own machine (the
benchmarks open thousands of feeds from it); the tests that check the limits turn the exemption off.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import orjson

Scope = dict[str, Any]
Receive = Any
Send = Any

CLOSE_TRY_AGAIN = 1013
CLOSE_POLICY = 1008  # "policy violation": the client broke a limit it was told about

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        b"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
)
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


@dataclass(frozen=True, slots=True)
class WebLimits:
    """The per-address limits of the web edge."""

    requests_per_s: float = 50.0  # sustained HTTP requests per address
    request_burst: int = 200
    connects_per_s: float = 5.0  # sustained new WebSockets per address
    connect_burst: int = 60  # a family of phones behind one Wi-Fi NAT, all opening the wall at once
    feeds_per_address: int = 200  # WebSockets open at once per address
    messages_per_s: float = 20.0  # subscribe/unsubscribe requests per feed (exempt addresses too)
    message_burst: int = 100
    request_timeout_s: float = 10.0  # a request's head and body, from the accept or the previous answer
    handshake_timeout_s: float = 10.0  # a WebSocket's handshake answered by the app
    unfinished_per_address: int = 64  # connections still waiting for their request, per address
    unfinished_total: int = 1024  # ... and in all (lowered to a quarter of the open-files limit)
    exempt: frozenset[str] = frozenset({"127.0.0.1", "::1"})


@dataclass(slots=True)
class _Bucket:
    tokens: float
    at: float


@dataclass(slots=True)
class RateLimiter:
    """Token buckets by key: `take(key, now)` is 0.0 when allowed, else the seconds until it would be."""

    rate: float
    burst: int
    max_keys: int = 100_000  # past this, idle buckets (full again) are forgotten
    _buckets: dict[str, _Bucket] = field(default_factory=dict)

    def take(self, key: str, now: float) -> float:
        """Spend one token of `key`'s bucket, or say how long until one is back."""
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self.max_keys:
                self._forget_full(now)
            bucket = self._buckets[key] = _Bucket(float(self.burst), now)
        bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.at) * self.rate)
        bucket.at = now
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return 0.0
        return (1.0 - bucket.tokens) / self.rate

    def _forget_full(self, now: float) -> None:
        full_after = self.burst / self.rate
        for key in [k for k, b in self._buckets.items() if now - b.at >= full_after]:
            del self._buckets[key]


def _json(status: int, error: str, limit: str, retry_after: float | None = None) -> tuple[list, bytes]:
    body = orjson.dumps({"error": error, "limit": limit})
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if retry_after is not None:
        headers.append((b"retry-after", str(max(1, round(retry_after + 0.5))).encode()))
    return headers, body


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


def cross_site(scope: Scope) -> str | None:
    """Why a request comes from another site (its Origin or Sec-Fetch-Site), or None if it does not."""
    if _header(scope, b"sec-fetch-site") == "cross-site":
        return "Sec-Fetch-Site: cross-site"
    origin = _header(scope, b"origin")
    if origin is None:
        return None  # not sent by a browser form or script on another site: curl, the referee's scripts
    host = _header(scope, b"host")
    # behind a reverse proxy the browser's origin is the proxy's public name, which it passes on
    names = {h.strip().lower() for h in (host, _header(scope, b"x-forwarded-host")) if h}
    if origin == "null" or urlsplit(origin).netloc.lower() not in names:
        return f"Origin {origin} is not this hub ({host})"
    return None


class Guard:
    """ASGI middleware: rate limits, feed limits and cross-site refusal in front, security headers behind."""

    def __init__(
        self, app: Any, limits: WebLimits | None = None, refused: Counter[str] | None = None
    ) -> None:
        self.app = app
        self.limits = limits or WebLimits()
        self.requests = RateLimiter(self.limits.requests_per_s, self.limits.request_burst)
        self.connects = RateLimiter(self.limits.connects_per_s, self.limits.connect_burst)
        self.open_feeds: Counter[str] = Counter()
        self.refused: Counter[str] = Counter() if refused is None else refused  # by limit, for /api/health

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check the limits, then run the app with the headers added."""
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    def _address(self, scope: Scope) -> str:
        client = scope.get("client")
        return client[0] if client else "unknown"

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        address = self._address(scope)
        refusal: tuple[int, str, str, float | None] | None = None
        if address not in self.limits.exempt:
            wait = self.requests.take(address, time.monotonic())
            if wait > 0:
                refusal = (
                    429,
                    f"too many requests from {address}; at most {self.limits.requests_per_s:g} a second "
                    f"/ çok fazla istek, lütfen bekleyin",
                    "requests_per_s",
                    wait,
                )
        if refusal is None and scope["method"] in UNSAFE_METHODS:
            why = cross_site(scope)
            if why is not None:
                refusal = (
                    403,
                    f"cross-site request refused ({why}); send the referee token in an Authorization "
                    f"header from this hub's console / başka siteden gelen istek reddedildi",
                    "same_origin",
                    None,
                )
        if refusal is not None:
            status, error, limit, wait = refusal
            self.refused[limit] += 1
            headers, body = _json(status, error, limit, wait)
            await send(
                {"type": "http.response.start", "status": status, "headers": [*headers, *SECURITY_HEADERS]}
            )
            await send({"type": "http.response.body", "body": body})
            return

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", ())}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in present]
                message = {**message, "headers": [*message.get("headers", ()), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        address = self._address(scope)
        if address not in self.limits.exempt:
            limit, error, wait = "", "", None
            if self.open_feeds[address] >= self.limits.feeds_per_address:
                limit = "feeds_per_address"
                error = (
                    f"{self.limits.feeds_per_address} feeds are already open from {address}; close one "
                    f"/ bu adresten çok fazla bağlantı açık"
                )
            else:
                wait = self.connects.take(address, time.monotonic())
                if wait > 0:
                    limit = "connects_per_s"
                    error = (
                        f"too many new connections from {address}; at most {self.limits.connects_per_s:g} "
                        f"a second / çok fazla yeni bağlantı, lütfen bekleyin"
                    )
            if limit:
                self.refused[limit] += 1
                await self._refuse_websocket(scope, receive, send, limit, error, wait)
                return
        self.open_feeds[address] += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.open_feeds[address] -= 1
            if self.open_feeds[address] <= 0:
                del self.open_feeds[address]

    async def _refuse_websocket(
        self, scope: Scope, receive: Receive, send: Send, limit: str, error: str, wait: float | None
    ) -> None:
        message = await receive()  # the handshake: websocket.connect
        if message["type"] != "websocket.connect":
            return
        if "websocket.http.response" in scope.get("extensions", {}):
            headers, body = _json(429, error, limit, wait)
            await send({"type": "websocket.http.response.start", "status": 429, "headers": headers})
            await send({"type": "websocket.http.response.body", "body": body})
        else:  # the server cannot answer a handshake with HTTP: accept-less close, which it sends as 403
            await send({"type": "websocket.close", "code": CLOSE_TRY_AGAIN, "reason": error[:120]})
