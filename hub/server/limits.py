"""What the web edge lets one client do: request and connection rates, open feeds, cross-site posts, headers.

`Guard` is plain ASGI middleware in front of the whole app. Per client address it keeps a token bucket for
HTTP requests and one for WebSocket connections, and a count of open WebSockets; a client over a limit gets
HTTP 429 with `Retry-After` and a JSON body that names the limit (a WebSocket handshake too, when the server
can answer one with HTTP; otherwise the connection is closed with 1013 "try again later"). Other clients
never wait on it: the check is a dictionary look-up before the app runs.

Console actions are safe from cross-site request forgery because they take a Bearer token from the
`Authorization` header and nothing from cookies (a form on another site cannot set that header); the guard
also refuses any state-changing request whose `Origin` or `Sec-Fetch-Site` says it came from another site.
The Origin is compared with the names the hub answers to (`Access`: its listen address, the venue's
`allowed_hosts`), never with the Host the request brings, and a browser's POST to another name is refused
with 421 (every request is, once the venue lists `allowed_hosts`). The client's address is the peer's; only a
venue's `trusted_proxies` may name another with X-Forwarded-For (uvicorn's own reading of it is turned off).
Every HTTP answer carries the security headers in `SECURITY_HEADERS`, and a redirect's Location is made a path.

Loopback clients are exempt from the rate limits by default: they are the operator's own machine (the
benchmarks open thousands of feeds from it); the tests that check the limits turn the exemption off.
"""

from __future__ import annotations

import contextlib
import ipaddress
import re
import socket
import struct
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson

Scope = dict[str, Any]
Receive = Any
Send = Any

CLOSE_TRY_AGAIN = 1013
CLOSE_POLICY = 1008  # "policy violation": the client broke a limit it was told about
MISDIRECTED = 421  # HTTP: a Host this hub does not answer to

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
    evict_after_s: float = 0.5  # how long one must have waited before a cap closes it
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


def _json(
    status: int, error: str, limit: str, retry_after: float | None = None
) -> tuple[list[tuple[bytes, bytes]], bytes]:
    body = orjson.dumps({"error": error, "limit": limit})
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if retry_after is not None:
        headers.append((b"retry-after", str(max(1, round(retry_after + 0.5))).encode()))
    return headers, body


def _header(scope: Scope, name: bytes) -> str | None:
    headers: Iterable[tuple[bytes, bytes]] = scope.get("headers", ())  # ASGI: (name, value) byte pairs
    for key, value in headers:
        if key == name:
            return value.decode("latin-1")
    return None


WILDCARD_HOSTS = frozenset(
    {"", "0.0.0.0", "::"}
)  # listen addresses that mean "every address of this machine"
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
DEFAULT_PORTS = {"http": 80, "https": 443}  # the port a Host or Origin without one means
_HOST_NAME = re.compile(r"[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*")

HostKey = tuple[str, int | None]  # a host name or address (IPv6 without brackets) and its port, if named
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def split_host(text: str) -> HostKey | None:
    """`name`, `name:port`, `1.2.3.4:port`, `[::1]:port` (or a bare IPv6 address) as (host, port), lower-case;
    None when it is none of these (a URL, a path, spaces, a port out of range)."""
    text = text.strip().lower()
    if text.startswith("["):
        end = text.find("]")
        host, rest = (text[1:end], text[end + 1 :]) if end > 0 else ("", "")
    elif text.count(":") > 1:
        host, rest = text, ""
    else:
        host, colon, port_text = text.partition(":")
        rest = colon + port_text
    port: int | None = None
    if rest:
        digits = rest[1:]
        if not (rest[0] == ":" and digits.isdigit() and len(digits) <= 5 and 0 < int(digits) < 65536):
            return None
        port = int(digits)
    host = host.rstrip(".")
    if ":" in host or text.startswith("["):
        try:
            return str(ipaddress.IPv6Address(host)), port
        except ValueError:
            return None
    return (host, port) if _HOST_NAME.fullmatch(host) and len(host) <= 253 else None


def _ip(text: str) -> str | None:
    """An address from X-Forwarded-For (`1.2.3.4`, `1.2.3.4:5678`, `[::1]:80`, `::1`), normalised, or None."""
    split = split_host(text)
    try:
        return str(ipaddress.ip_address(split[0])) if split else None
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class Access:
    """Which names the web edge answers to and which peers may say who the client is.

    `allowed` holds (host, port) pairs; a pair without a port allows the name on any port. None means no list
    is known (an app built without a runtime): any Host, and Origin compared with Host. `strict` (the venue
    lists `allowed_hosts`) refuses every request whose Host is not allowed; otherwise only state-changing ones
    are, so spectators reaching the hub by any name or address still get its pages. `trusted_proxies` may set
    the client's address with X-Forwarded-For; anyone else's is ignored."""

    allowed: frozenset[HostKey] | None = None
    strict: bool = False
    trusted_proxies: tuple[Network, ...] = ()

    def allows_host(self, netloc: str | None, scheme: str = "http") -> bool:
        """True if a Host header's (or an Origin's) host and port are among the allowed names; a name without
        a port is on its scheme's default port (browsers leave out :80 and :443)."""
        if self.allowed is None:
            return True
        key = split_host(netloc) if netloc else None
        if key is None:
            return False
        port = key[1] if key[1] is not None else DEFAULT_PORTS.get(scheme, 80)
        return (key[0], port) in self.allowed or (key[0], None) in self.allowed

    def trusts(self, address: str) -> bool:
        """True if `address` is one of the trusted proxies."""
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.trusted_proxies)

    def client(self, scope: Scope) -> str:
        """The client's address: the peer's, or when the peer is a trusted proxy, the last address of
        X-Forwarded-For that no trusted proxy holds (each proxy appends the address it was reached from)."""
        peer = scope.get("client")
        address = peer[0] if peer else "unknown"
        if not self.trusted_proxies or not self.trusts(address):
            return address
        forwarded = ",".join(
            value.decode("latin-1") for key, value in scope.get("headers", ()) if key == b"x-forwarded-for"
        )
        hops = [hop for hop in (h.strip() for h in forwarded.split(",")) if hop]
        for hop in reversed(hops):
            ip = _ip(hop)
            if ip is None:  # not written by a proxy: the client's own text
                return address
            if not self.trusts(ip):
                return ip
            address = ip
        return address


def machine_names() -> set[str]:
    """This machine's host name and addresses (IPv4 of each interface, global IPv6), and the loopback names."""
    names = {socket.gethostname().lower(), *LOOPBACK_NAMES}
    with contextlib.suppress(OSError, ImportError):
        import fcntl

        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            for _, interface in socket.if_nameindex():
                with contextlib.suppress(OSError):  # SIOCGIFADDR: an interface without IPv4 has none
                    packed = fcntl.ioctl(probe.fileno(), 0x8915, struct.pack("256s", interface.encode()[:15]))
                    names.add(socket.inet_ntoa(packed[20:24]))
    with contextlib.suppress(OSError, ValueError):  # Linux; a link-local address needs a zone no URL carries
        for line in Path("/proc/net/if_inet6").read_text().split("\n"):
            fields = line.split()
            if len(fields) >= 4 and fields[3] in ("00", "10"):  # global, host
                names.add(str(ipaddress.IPv6Address(bytes.fromhex(fields[0]))))
    return names


def access_for(host: str, port: int, names: tuple[str, ...] = (), proxies: tuple[str, ...] = ()) -> Access:
    """The access rules of a hub listening on host:port: the bound address (every name and address of the
    machine for a wildcard, the loopback names for a loopback address) on that port, plus `names` (a venue's
    allowed_hosts, any port unless they name one), strict when `names` are given."""
    if host in WILDCARD_HOSTS:
        bound = machine_names()
    else:
        bound = {host.strip("[]").lower()}
        with contextlib.suppress(ValueError):
            if ipaddress.ip_address(host.strip("[]")).is_loopback:
                bound |= LOOPBACK_NAMES
        if host.lower() == "localhost":
            bound |= LOOPBACK_NAMES
    allowed: set[HostKey] = set()
    for name in bound:
        key = split_host(name)
        if key is not None:
            allowed.add((key[0], port))
    allowed |= {key for key in map(split_host, names) if key is not None}
    networks = tuple(ipaddress.ip_network(p, strict=False) for p in proxies)
    return Access(frozenset(allowed), strict=bool(names), trusted_proxies=networks)


def cross_site(scope: Scope, access: Access | None = None) -> str | None:
    """Why a request comes from another site (its Origin or Sec-Fetch-Site), or None if it does not.

    The Origin is compared with the names the hub answers to (`access.allowed`), never with the Host or
    X-Forwarded-Host the request itself brings: a page on a name that resolves to the hub (DNS rebinding)
    sends an Origin equal to its Host. Without a list of names (an app built without a runtime) it is compared
    with the Host header."""
    if _header(scope, b"sec-fetch-site") == "cross-site":
        return "Sec-Fetch-Site: cross-site"
    origin = _header(scope, b"origin")
    if origin is None:
        return None  # not sent by a browser form or script on another site: curl, the referee's scripts
    if origin == "null":
        return "Origin null is not this hub"
    parts = urlsplit(origin)
    if access is not None and access.allowed is not None:
        if parts.scheme not in ("http", "https") or not access.allows_host(parts.netloc, parts.scheme):
            return f"Origin {origin[:100]} is not one of this hub's names (allowed_hosts)"
        return None
    host = _header(scope, b"host")
    if host is None or parts.netloc.lower() != host.strip().lower():
        return f"Origin {origin[:100]} is not this hub ({host})"
    return None


Refusal = tuple[int, str, str, float | None]  # status, error, limit, seconds to wait


def misdirected(host: str | None) -> Refusal:
    """The refusal of a request whose Host is not one of the hub's names."""
    return (
        MISDIRECTED,
        f"this hub does not answer to the name {(host or '')[:100]!r}; use its address, or add the name "
        f"to [venue] allowed_hosts in the venue file / bu ad bu merkezin adlarından değil; salon dosyasında "
        f"[venue] allowed_hosts listesine ekleyin",
        "allowed_hosts",
        None,
    )


def relative_location(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """Response headers with an absolute Location (Starlette builds one from the request's Host) made a path:
    a redirect never sends a browser to a name the request made up."""
    out = []
    for key, value in headers:
        if key.lower() == b"location":
            parts = urlsplit(value.decode("latin-1"))
            if parts.scheme or parts.netloc:
                path = "/" + parts.path.lstrip("/")  # "//evil.example" would be absolute again
                value = (path + (f"?{parts.query}" if parts.query else "")).encode("latin-1")
        out.append((key, value))
    return out


class Guard:
    """ASGI middleware: rate limits, feed limits, Host and cross-site refusal in front, security headers and
    relative redirects behind."""

    def __init__(
        self,
        app: Any,
        limits: WebLimits | None = None,
        refused: Counter[str] | None = None,
        access: Access | None = None,
    ) -> None:
        self.app = app
        self.limits = limits or WebLimits()
        self.access = access or Access()
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
        """The client's address (a trusted proxy's X-Forwarded-For), also set as the scope's client for the app."""
        address = self.access.client(scope)
        client = scope.get("client")
        if client and client[0] != address:
            scope["client"] = (address, 0)
        return address

    def _refusal(self, scope: Scope, address: str) -> Refusal | None:
        """Why an HTTP request is refused before the app sees it, or None."""
        if address not in self.limits.exempt:
            wait = self.requests.take(address, time.monotonic())
            if wait > 0:
                return (
                    429,
                    f"too many requests from {address}; at most {self.limits.requests_per_s:g} a second "
                    f"/ çok fazla istek, lütfen bekleyin",
                    "requests_per_s",
                    wait,
                )
        unsafe = scope["method"] in UNSAFE_METHODS
        host = _header(scope, b"host")
        # A browser names its page on every POST (Origin; Sec-Fetch-Site over HTTPS). A client that names none
        # is a script, which can send any Host it likes: refusing its Host protects nothing, so only a venue
        # with allowed_hosts (strict) holds scripts to its names.
        browser = _header(scope, b"origin") is not None or _header(scope, b"sec-fetch-site") is not None
        scheme = scope.get("scheme", "http")
        if (self.access.strict or (unsafe and browser)) and not self.access.allows_host(host, scheme):
            return misdirected(host)
        why = cross_site(scope, self.access) if unsafe else None
        if why is not None:
            return (
                403,
                f"cross-site request refused ({why}); send the referee token in an Authorization "
                f"header from this hub's console / başka siteden gelen istek reddedildi",
                "same_origin",
                None,
            )
        return None

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = self._refusal(scope, self._address(scope))
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
                headers = relative_location(list(message.get("headers", ())))
                present = {k.lower() for k, _ in headers}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in present]
                message = {**message, "headers": [*headers, *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        address = self._address(scope)
        host = _header(scope, b"host")
        if self.access.strict and not self.access.allows_host(
            host, "https" if scope.get("scheme") == "wss" else "http"
        ):
            status, error, limit, _ = misdirected(host)
            self.refused[limit] += 1
            await self._refuse_websocket(scope, receive, send, limit, error, None, status)
            return
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
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        limit: str,
        error: str,
        wait: float | None,
        status: int = 429,
    ) -> None:
        message = await receive()  # the handshake: websocket.connect
        if message["type"] != "websocket.connect":
            return
        if "websocket.http.response" in scope.get("extensions", {}):
            headers, body = _json(status, error, limit, wait)
            await send({"type": "websocket.http.response.start", "status": status, "headers": headers})
            await send({"type": "websocket.http.response.body", "body": body})
        else:  # the server cannot answer a handshake with HTTP: accept-less close, which it sends as 403
            code = CLOSE_TRY_AGAIN if status == 429 else CLOSE_POLICY
            await send({"type": "websocket.close", "code": code, "reason": error[:120]})
