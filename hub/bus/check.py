"""What a spectator edge checks on the bus before it serves: the Redis URL works, and a hub publishes its venue.

An edge that cannot read its hall's state would serve empty matches for ever, so a start that cannot work
stops with one line (`StartupError`) naming the redacted URL and what is wrong: a name that does not
resolve, nothing listening, a Redis that wants a password or refuses the one given, a server that does not
speak Redis, a venue name no hub publishes. Exit 2 when the URL or the venue file must be fixed; exit 1 when
a retry may work (nothing answers yet, or no hub has published within `--wait-for-hub`).

A hub publishes its venue's owner record (`Keys.hub`) whenever it connects, and Redis keeps it. Until its
own hub has, the edge waits (`--wait-for-hub`): at a hall's first start its hub may come up after another
hall's. If Redis carries other venues but still not this one when the wait is over, the venue file's name is
most likely a typo: exit 2, naming what Redis carries (the waiting line names them at once). If it carries
none, exit 1: start the hub. Once the edge has started, a Redis outage is the reader's to ride out
(`hub.bus.streams`).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import Callable
from urllib.parse import urlsplit

import orjson
import redis.asyncio as aioredis
from redis.exceptions import AuthenticationError, InvalidResponse, RedisError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeout

from hub.bus.streams import Keys, venue_key
from hub.bus.url import redact
from hub.server.startup import EXIT_BAD_INPUT, EXIT_FAILED, StartupError
from hub.venue import Venue

ANSWER_S = 3.0  # connect and first answer: a Redis on a working network answers in milliseconds
POLL_S = 0.5  # how often an edge waiting for its hub looks again
NAMES_SHOWN = 8  # venues a refusal lists before "…"


async def check_edge_start(
    url: str,
    venue: Venue,
    *,
    wait_for_hub_s: float,
    waiting: Callable[[list[str]], None] = lambda others: None,
) -> None:
    """Return once Redis at `url` answers and carries `venue`; else StartupError with the line to print.

    `waiting` is called once, with the venues Redis carries, if the edge has to wait for its hub."""
    client = aioredis.Redis.from_url(url, socket_connect_timeout=ANSWER_S, socket_timeout=ANSWER_S)
    try:
        deadline = time.monotonic() + wait_for_hub_s
        first = True
        while True:
            ours, others = await _look(client, url, venue)
            if ours:
                return
            if time.monotonic() >= deadline:  # others but not ours: most likely a typo in [venue] name
                code = EXIT_BAD_INPUT if others else EXIT_FAILED
                raise _no_hub(url, venue, others, code, waited=wait_for_hub_s)
            if first:
                waiting(others)
            first = False
            await asyncio.sleep(POLL_S)
    finally:
        with contextlib.suppress(Exception):
            await client.aclose()


async def _look(client: aioredis.Redis, url: str, venue: Venue) -> tuple[bool, list[str]]:
    """Whether Redis carries the venue, and the names of the venues it carries."""
    keys = Keys.of(venue)
    try:
        async with asyncio.timeout(ANSWER_S + 1):  # a server that accepts and never answers
            if await client.exists(keys.hub, keys.public):
                return True, []
            return False, await _venues(client)
    except (RedisError, OSError) as exc:  # OSError: asyncio's TimeoutError too
        raise _unusable(url, exc) from exc


async def _venues(client: aioredis.Redis) -> list[str]:
    """The venue names whose hubs have published on this Redis, from their owner records."""
    names = []
    async for key in client.scan_iter(match="boardcast:*:hub", count=1000):
        raw = await client.get(key)
        slug = (key.decode(errors="replace") if isinstance(key, bytes) else key).split(":")[1]
        try:
            names.append(str(orjson.loads(raw or b"{}")["venue"]))
        except (KeyError, ValueError, TypeError):
            names.append(slug)  # a damaged record still says a hall is there
    return sorted(set(names))


def _no_hub(url: str, venue: Venue, others: list[str], code: int, waited: float = 0.0) -> StartupError:
    where = f"no hub publishes venue {venue.name!r} (bus key {venue_key(venue)!r}) on {redact(url)}"
    if waited:
        where += f" after waiting {waited:g} s"
    if others:
        shown = ", ".join(repr(n) for n in others[:NAMES_SHOWN]) + (
            ", …" if len(others) > NAMES_SHOWN else ""
        )
        carries = f"this Redis carries: {shown}"
    else:
        carries = "this Redis carries no venue yet; start the hall's hub"
    return StartupError(
        f"{where}; {carries} / bu Redis'te {venue.name!r} salonunu yayınlayan merkez yok; "
        f"salon dosyasındaki [venue] name'i ve merkezi denetleyin",
        code,
    )


def _unusable(url: str, exc: BaseException) -> StartupError:
    """The one line for a Redis URL that does not work, and whether fixing the URL is what it takes."""
    parts = urlsplit(url)
    host = f"[{parts.hostname}]" if ":" in (parts.hostname or "") else parts.hostname
    where = f"{host}:{parts.port or 6379}"
    cause = exc.__cause__ or exc.__context__
    code = EXIT_BAD_INPUT
    if isinstance(exc, AuthenticationError):
        if parts.password or parts.username:
            why = f"Redis at {where} refused the user/password in the URL / Redis parolayı reddetti"
        else:
            why = f"Redis at {where} needs a password: redis://:PASSWORD@{where}/N / Redis parola istiyor"
    elif isinstance(cause, socket.gaierror) and cause.errno == socket.EAI_AGAIN:  # at boot, say
        why = f"no name server answered for {parts.hostname!r} / ad sunucusu yanıt vermedi"
        code = EXIT_FAILED
    elif isinstance(cause, socket.gaierror):
        why = f"the host name {parts.hostname!r} does not resolve / sunucu adı çözülemiyor"
    elif isinstance(cause, ConnectionRefusedError):
        why, code = f"nothing listens on {where} (is Redis running?) / bu adreste dinleyen yok", EXIT_FAILED
    elif isinstance(exc, (TimeoutError, RedisTimeout)) or isinstance(cause, TimeoutError):
        why = (
            f"no answer from {where} within {ANSWER_S:g} s: not a Redis server, or a firewall drops the "
            f"traffic / {ANSWER_S:g} sn içinde yanıt yok: Redis değil ya da güvenlik duvarı engelliyor"
        )
        code = EXIT_FAILED
    elif isinstance(exc, InvalidResponse) or "closed by server" in str(exc):
        why = f"the server on {where} does not speak Redis / bu adresteki sunucu Redis değil"
    elif isinstance(exc, ResponseError):  # a database number out of range, an ACL that forbids reading
        why = f"Redis at {where} refused: {exc} / Redis isteği reddetti"
    else:
        why, code = f"{where}: {exc} / bağlanılamadı", EXIT_FAILED
    return StartupError(f"bus {redact(url)}: {why}", code)
