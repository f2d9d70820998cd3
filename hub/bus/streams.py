"""The bus between hall hubs and spectator edges: Redis Streams, one stream per venue.

A hall hub publishes every public change of a match (after its commit, and after a delayed sport's broadcast
delay) as one stream entry: the match id, its version, the hub's venue version and the match's state as
`to_snapshot` writes it. In the same MULTI it writes that entry into the venue's snapshot hash (latest entry
per match), so a reader that loads the hash and the stream's last id in one MULTI holds exactly what the
stream held up to that id. Streams are trimmed with `XADD ... MAXLEN ~ N`.

The hub never waits on Redis: changes go into a bounded local backlog that a writer task drains, a burst
in one MULTI (changes within `GATHER_S` of the last write wait for it; an edge reads the same way). While
Redis is away the backlog fills; past its bound it is compacted to the latest change of each match (never
losing a match's newest state), and on every (re)connect the hub writes every match's current state again,
so edges catch up even when Redis came back empty.

An edge reads with `XREAD BLOCK` from the last id it applied. On every (re)connect it first loads the
snapshot hash; when the stream's first entry is past its last id (trimmed away unread), it resumes from the
snapshot's id. Readers drop any change whose version is not newer than what they hold, so a screen never
goes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import re
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
import redis.asyncio as aioredis
from redis.exceptions import RedisError

from devices.link import Backoff
from hub.bus.url import check_bus_url, redact
from hub.matches import MatchState, to_snapshot
from hub.venue import Venue

log = logging.getLogger(__name__)

STREAM_MAXLEN = 10_000  # entries kept per venue stream (approximate trimming)
BACKLOG_LIMIT = 20_000  # changes a hub holds while Redis is away before compacting to one per match
WRITE_BATCH = 500  # entries per MULTI
READ_BATCH = 500  # entries per XREAD
READ_BLOCK_MS = 1000
# A change that comes within this long of the last write (hub) or read (edge) waits for the rest of it and
# travels with whatever else came meanwhile: a busy hall costs one Redis round trip per interval, not one
# per change, at both ends, while a change after a quiet spell still goes at once.
GATHER_S = 0.025
OWNER_EVERY_S = 2.0  # how often an edge re-reads which hub owns the venue
TIMEOUT_S = 5.0  # a Redis command that takes longer means the link is down
BACKOFF = Backoff(initial=0.2, maximum=5.0)


def venue_key(venue: Venue) -> str:
    """The venue's name on the bus: halls sharing one Redis need different venue names."""
    slug = re.sub(r"[^a-z0-9]+", "-", venue.name.lower()).strip("-")
    return slug or "venue"


@dataclass(frozen=True, slots=True)
class Keys:
    """The Redis keys of one venue."""

    stream: str  # XADD'ed public changes
    public: str  # hash: match id -> latest entry
    hub: str  # JSON: who owns the venue's tables (for an edge's referee refusal)

    @classmethod
    def of(cls, venue: Venue) -> Keys:
        """The keys of a venue."""
        base = f"boardcast:{venue_key(venue)}"
        return cls(f"{base}:changes", f"{base}:public", f"{base}:hub")


@dataclass(frozen=True, slots=True)
class PublicChange:
    """One match's public state as the hub published it."""

    match_id: str
    version: int
    venue_version: int
    state: dict[str, Any]  # `to_snapshot` of the public state

    def encode(self) -> bytes:
        """The entry's payload."""
        return orjson.dumps(
            {
                "match": self.match_id,
                "version": self.version,
                "venue_version": self.venue_version,
                "state": self.state,
            }
        )

    @classmethod
    def decode(cls, data: bytes) -> PublicChange:
        """Read a payload; KeyError/ValueError on a damaged one."""
        d = orjson.loads(data)
        return cls(d["match"], int(d["version"]), int(d["venue_version"]), d["state"])


@dataclass(slots=True)
class LinkHealth:
    """How the Redis link is doing, for /api/health."""

    url: str
    state: str = "connecting"  # connecting | connected | down
    since: float = 0.0
    reconnects: int = 0
    last_error: str | None = None

    def up(self) -> None:
        """The link works."""
        if self.state != "connected":
            self.state, self.since = "connected", time.time()

    def down(self, exc: BaseException) -> None:
        """The link failed."""
        if self.state == "connected":
            self.reconnects += 1
        if self.state != "down":
            self.state, self.since = "down", time.time()
        self.last_error = f"{type(exc).__name__}: {exc}"

    def to_dict(self) -> dict[str, Any]:
        """Plain data."""
        return {
            "url": redact(self.url),
            "link": self.state,
            "since": self.since,
            "reconnects": self.reconnects,
            "last_error": self.last_error,
        }


def _client(url: str) -> aioredis.Redis:
    # socket_timeout above the XREAD block time, so a blocking read is not mistaken for a dead link
    return aioredis.Redis.from_url(
        url, socket_connect_timeout=TIMEOUT_S, socket_timeout=TIMEOUT_S + READ_BLOCK_MS / 1000
    )


class BusPublisher:
    """A hall hub's side: queue every public change, write it to the venue's stream and snapshot hash."""

    def __init__(
        self,
        url: str,
        venue: Venue,
        *,
        hub_url: str,
        maxlen: int = STREAM_MAXLEN,
        backlog_limit: int = BACKLOG_LIMIT,
    ) -> None:
        self.url = check_bus_url(url)
        self.keys = Keys.of(venue)
        self.venue = venue
        self.hub_url = hub_url
        self.maxlen = maxlen
        self.backlog_limit = backlog_limit
        self.health = LinkHealth(url)
        self._backlog: deque[PublicChange] = deque()
        self._wake = asyncio.Event()
        self._current: Callable[[], list[PublicChange]] = list
        self.written = 0
        self.compactions = 0
        self.last_id: str | None = None

    def attach(self, hall: Any) -> None:
        """Follow a hall's public changes; on each (re)connect its every match is written again."""
        hall.public_listeners.append(self.offer)

        def current() -> list[PublicChange]:
            return [
                PublicChange(s.info.id, s.version, hall.venue_version, to_snapshot(s))
                for s in hall.public.values()
                if s.version > 0  # a match with no event yet: an edge shows it as the venue file lists it
            ]

        self._current = current

    def offer(self, state: MatchState, venue_version: int) -> None:
        """Queue a public change; never waits (called from the hall as the change is made public)."""
        self._backlog.append(PublicChange(state.info.id, state.version, venue_version, to_snapshot(state)))
        if len(self._backlog) > self.backlog_limit:
            self._compact()
        self._wake.set()

    def _compact(self) -> None:
        """Keep only the newest change of each match, in order: bounded, and every match still ends current."""
        latest: dict[str, PublicChange] = {}
        for change in self._backlog:
            latest.pop(change.match_id, None)
            latest[change.match_id] = change
        self._backlog = deque(latest.values())
        self.compactions += 1
        log.warning(
            "bus %s unreachable: backlog compacted to the latest change of %d matches",
            redact(self.url),
            len(latest),
        )

    @property
    def backlog(self) -> int:
        """Changes not yet written to Redis."""
        return len(self._backlog)

    def health_dict(self) -> dict[str, Any]:
        """The bus link for /api/health."""
        return {
            **self.health.to_dict(),
            "role": "hub",
            "stream": self.keys.stream,
            "backlog": len(self._backlog),
            "backlog_limit": self.backlog_limit,
            "compactions": self.compactions,
            "written": self.written,
            "last_id": self.last_id,
        }

    async def run(self) -> None:
        """Write changes until cancelled; reconnect with backoff when Redis is away."""
        rng = random.Random()
        failures = 0
        while True:
            client = _client(self.url)
            try:
                await client.ping()
                await self._seed(client)
                self.health.up()
                failures = 0
                loop = asyncio.get_running_loop()
                while True:
                    written_at = loop.time()
                    await self._flush(client)
                    self._wake.clear()
                    if not self._backlog:
                        await self._wake.wait()
                    await asyncio.sleep(max(0.0, written_at + GATHER_S - loop.time()))
            except (RedisError, OSError) as exc:
                _reraise_cancel(exc)
                self.health.down(exc)
                failures += 1
                log.warning("bus %s: %s; retrying", redact(self.url), exc)
            finally:
                with contextlib.suppress(Exception):
                    await client.aclose()
            await asyncio.sleep(BACKOFF.delay(failures, rng))

    async def _seed(self, client: aioredis.Redis) -> None:
        """Write the owner record and every match's current public state (Redis may have come back empty)."""
        meta = {"venue": self.venue.name, "hub": self.hub_url, "since": time.time()}
        await client.set(self.keys.hub, orjson.dumps(meta))
        # after the backlog, so nothing written later is older than what the backlog held
        self._backlog.extend(self._current())

    async def _flush(self, client: aioredis.Redis) -> None:
        while self._backlog:
            batch = [self._backlog[i] for i in range(min(WRITE_BATCH, len(self._backlog)))]
            async with client.pipeline(transaction=True) as pipe:
                for change in batch:
                    payload = change.encode()
                    pipe.xadd(
                        self.keys.stream,
                        {"match": change.match_id, "data": payload},
                        maxlen=self.maxlen,
                        approximate=True,
                    )
                    pipe.hset(self.keys.public, change.match_id, payload)
                replies = await pipe.execute()
            _reraise_cancel()
            self.last_id = _text(replies[-2])
            for _ in batch:  # written: only now do they leave the backlog
                self._backlog.popleft()
            self.written += len(batch)


def _reraise_cancel(exc: BaseException | None = None) -> None:
    """Stop if this task was cancelled: redis-py can swallow a cancellation that lands while a reply is
    being read (the command then returns, or fails as a ConnectionError), and a reader that went on would
    never stop."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError from exc


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _id_tuple(stream_id: str) -> tuple[int, int]:
    ms, _, seq = stream_id.partition("-")
    return int(ms), int(seq or 0)


class BusReader:
    """An edge's side: the venue's snapshot, then the stream from the last id applied, into `apply`."""

    def __init__(self, url: str, venue: Venue, apply: Callable[[PublicChange], bool]) -> None:
        self.url = check_bus_url(url)
        self.keys = Keys.of(venue)
        self.apply = apply
        self.health = LinkHealth(url)
        self.last_id = "0-0"
        self.owner: dict[str, Any] = {}
        self.applied = 0
        self.stale = 0  # entries not newer than what the edge held (replays after a reconnect): dropped
        self.damaged = 0
        self.snapshot_loads = 0
        self.trimmed_resumes = 0  # times the stream had lost entries past last_id: resumed from the snapshot
        self.last_entry_at: float | None = None
        self.ready = asyncio.Event()  # set once the first snapshot is loaded

    def health_dict(self) -> dict[str, Any]:
        """The bus link for /api/health."""
        return {
            **self.health.to_dict(),
            "role": "edge",
            "stream": self.keys.stream,
            "last_id": self.last_id,
            "applied": self.applied,
            "stale_dropped": self.stale,
            "damaged": self.damaged,
            "snapshot_loads": self.snapshot_loads,
            "trimmed_resumes": self.trimmed_resumes,
            "last_entry_at": self.last_entry_at,
            "owner": self.owner.get("hub"),
        }

    async def run(self) -> None:
        """Read until cancelled; reconnect with backoff when Redis is away."""
        rng = random.Random()
        failures = 0
        while True:
            client = _client(self.url)
            try:
                await self._load_snapshot(client)
                self.health.up()
                self.ready.set()
                failures = 0
                await self._follow(client)
            except (RedisError, OSError) as exc:
                _reraise_cancel(exc)
                self.health.down(exc)
                failures += 1
                log.warning("bus %s: %s; retrying", redact(self.url), exc)
            finally:
                with contextlib.suppress(Exception):
                    await client.aclose()
            await asyncio.sleep(BACKOFF.delay(failures, rng))

    async def _load_snapshot(self, client: aioredis.Redis) -> None:
        """Apply the snapshot hash; resume from its id when the stream lost entries we had not read."""
        async with client.pipeline(transaction=True) as pipe:
            pipe.hgetall(self.keys.public)
            pipe.xrevrange(self.keys.stream, count=1)
            pipe.get(self.keys.hub)
            pipe.xrange(self.keys.stream, count=1)  # the oldest entry kept: before it, entries were trimmed
            snapshot, last, owner, oldest = await pipe.execute()
        if owner:
            self.owner = orjson.loads(owner)
        self.snapshot_loads += 1
        for payload in snapshot.values():
            self._apply(payload)
        if not last:
            return  # no stream (yet, or Redis came back empty): the hub's reseed arrives as new entries
        snapshot_id = _text(last[0][0])
        first = _text(oldest[0][0])
        if self.last_id == "0-0":  # a fresh edge: the snapshot holds everything up to its id
            self.last_id = snapshot_id
        elif _id_tuple(first) > _id_tuple(self.last_id):  # entries after ours may have been trimmed
            self.trimmed_resumes += 1
            self.last_id = snapshot_id

    async def _follow(self, client: aioredis.Redis) -> None:
        owner_checked = time.monotonic()
        loop = asyncio.get_running_loop()
        read_at = float("-inf")
        while True:
            # after a read that brought entries, the next waits out GATHER_S (and lets the web server run)
            await asyncio.sleep(max(0.0, read_at + GATHER_S - loop.time()))
            # redis-py types this reply as RESP3's dict; this connection speaks RESP2: [[stream, entries]]
            reply: Any = await client.xread(
                {self.keys.stream: self.last_id}, count=READ_BATCH, block=READ_BLOCK_MS
            )
            _reraise_cancel()
            # a hub that started after us, or restarted elsewhere, is named
            if time.monotonic() - owner_checked > OWNER_EVERY_S or (reply and not self.owner):
                owner_checked = time.monotonic()
                owner = await client.get(self.keys.hub)
                if owner:
                    self.owner = orjson.loads(owner)
            if not reply:
                continue
            read_at = loop.time()
            entries = reply[0][1]
            for entry_id, fields in entries:
                self._apply(fields.get(b"data", b""))
                self.last_id = _text(entry_id)
            self.last_entry_at = time.time()
            if len(entries) >= READ_BATCH:  # behind: make sure nothing between was trimmed away
                oldest: Any = await client.xrange(self.keys.stream, count=1)
                if oldest and _id_tuple(_text(oldest[0][0])) > _id_tuple(self.last_id):
                    await self._load_snapshot(client)

    def _apply(self, payload: bytes) -> None:
        try:
            change = PublicChange.decode(payload)
        except (KeyError, ValueError, TypeError) as exc:
            self.damaged += 1
            log.error("bus %s: a damaged entry was skipped: %s", redact(self.url), exc)
            return
        if self.apply(change):
            self.applied += 1
        else:
            self.stale += 1
