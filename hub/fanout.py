"""Topics, subscribers and per-client coalescing queues: how one change reaches every screen once.

A change is encoded once, as the JSON text `{"topic", "version", "data"}`, and offered to every subscriber
of its topic. A client's queue holds at most one frame per (topic, key): a newer version replaces an older
one that the client has not been sent yet, so a slow phone skips intermediate scores but always gets the
latest, and its queue never grows past the number of things it watches. Publishing never waits on a
client; each client's own writer task waits on its socket, and a socket that stays blocked past
`stuck_after_s` is closed.

Keys: the `venue` topic carries one compact entry per match, keyed by match id, so coalescing keeps the
latest of every match rather than only the latest match to change. Other topics carry whole states.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

SNAPSHOT = "*"


@dataclass(frozen=True, slots=True)
class Published:
    """A change as sent: its topic, version and the JSON text every subscriber receives."""

    topic: str
    version: int
    text: str


def encode(topic: str, version: int, data: Any, *, snapshot: bool = False) -> str:
    """The wire text of one change, encoded once for every subscriber."""
    message: dict[str, Any] = {"topic": topic, "version": version, "data": data}
    if snapshot:
        message["snapshot"] = True
    return orjson.dumps(message).decode()


class Subscriber:
    """One connected client's subscriptions and its coalescing queue."""

    def __init__(self, client_id: int) -> None:
        self.id = client_id
        self.topics: dict[str, int] = {}  # topic -> last version queued
        self._pending: dict[tuple[str, str | None], Published] = {}
        self._wake = asyncio.Event()
        self.sent = 0
        self.coalesced = 0
        self.closed = False
        self.referee: str | None = None  # the referee this client proved to be, if any
        self.batch_s: float | None = None  # if set, changes go out as one JSON array per tick of this length

    def offer(self, key: tuple[str, str | None], item: Published) -> None:
        """Queue a frame, replacing an unsent older version of the same (topic, key)."""
        old = self._pending.pop(key, None)
        if old is not None:
            if old.version > item.version:  # never let an older version overtake a newer one
                self._pending[key] = old
                return
            self.coalesced += 1
        self._pending[key] = item
        self.topics[item.topic] = max(self.topics.get(item.topic, 0), item.version)
        self._wake.set()

    def drop_topic(self, topic: str) -> None:
        """Forget a topic and anything queued for it."""
        self.topics.pop(topic, None)
        for key in [k for k in self._pending if k[0] == topic]:
            del self._pending[key]

    @property
    def backlog(self) -> int:
        """Frames waiting to be sent."""
        return len(self._pending)

    async def take(self) -> list[str]:
        """Wait for frames, then take all of them in the order they were queued."""
        while not self._pending:
            self._wake.clear()
            await self._wake.wait()
        return self.take_now()

    def take_now(self) -> list[str]:
        """Take whatever is queued, without waiting."""
        items = list(self._pending.values())
        self._pending.clear()
        return [i.text for i in items]


SnapshotSource = Callable[[], tuple[int, Any]]  # (version, data or a function that builds it)


class Fanout:
    """Routes published changes to subscribers; knows how to snapshot each topic."""

    def __init__(self, *, max_topics_per_client: int = 64) -> None:
        self.max_topics_per_client = max_topics_per_client
        self._subscribers: dict[str, set[Subscriber]] = {}
        self._sources: list[Callable[[str], SnapshotSource | None]] = []
        self._next_client = 1
        self._snapshots: dict[str, Published] = {}
        self.published = 0
        self.clients: set[Subscriber] = set()

    def add_source(self, resolve: Callable[[str], SnapshotSource | None]) -> None:
        """Register a function that returns a snapshot source for the topics it knows, else None."""
        self._sources.append(resolve)

    def source(self, topic: str) -> SnapshotSource | None:
        """The snapshot source of a topic, or None for a topic nobody serves."""
        for resolve in self._sources:
            found = resolve(topic)
            if found is not None:
                return found
        return None

    def connect(self) -> Subscriber:
        """A new client."""
        sub = Subscriber(self._next_client)
        self._next_client += 1
        self.clients.add(sub)
        return sub

    def disconnect(self, sub: Subscriber) -> None:
        """Forget a client and all its subscriptions."""
        sub.closed = True
        for topic in list(sub.topics):
            self._subscribers.get(topic, set()).discard(sub)
        sub.topics.clear()
        self.clients.discard(sub)

    def subscribe(self, sub: Subscriber, topic: str, resume_version: int | None = None) -> None:
        """Subscribe and queue the topic's snapshot unless the client already holds its latest version."""
        if topic not in sub.topics and len(sub.topics) >= self.max_topics_per_client:
            raise SubscriptionRefused(
                f"at most {self.max_topics_per_client} topics per client / istemci başına en fazla "
                f"{self.max_topics_per_client} konu"
            )
        source = self.source(topic)
        if source is None:
            raise SubscriptionRefused(f"unknown topic {topic!r} / bilinmeyen konu")
        self._subscribers.setdefault(topic, set()).add(sub)
        version, data = source()
        sub.topics.setdefault(topic, 0)
        if resume_version is not None and resume_version >= version:
            sub.topics[topic] = resume_version
            return
        sub.drop_topic(topic)
        sub.topics[topic] = 0
        sub.offer((topic, SNAPSHOT), self._snapshot(topic, version, data))

    def _snapshot(self, topic: str, version: int, data: Any) -> Published:
        """A topic's snapshot. A source that hands a builder (not data) promises its version changes with its
        content, so the snapshot is built and encoded once per version however many clients join."""
        if not callable(data):
            return Published(topic, version, encode(topic, version, data, snapshot=True))
        cached = self._snapshots.get(topic)
        if cached is None or cached.version != version:
            cached = Published(topic, version, encode(topic, version, data(), snapshot=True))
            self._snapshots[topic] = cached
        return cached

    def forget_snapshot(self, topic: str) -> None:
        """Drop a topic's cached snapshot: its content changed without a new version (a delayed release)."""
        self._snapshots.pop(topic, None)

    def unsubscribe(self, sub: Subscriber, topic: str) -> None:
        """Stop sending a topic to a client."""
        self._subscribers.get(topic, set()).discard(sub)
        sub.drop_topic(topic)

    def publish(self, topic: str, version: int, data: Any, key: str | None = None) -> None:
        """Encode a change once and queue it for every subscriber of the topic."""
        subs = self._subscribers.get(topic)
        self.published += 1
        if not subs:
            return
        item = Published(topic, version, encode(topic, version, data))
        for sub in subs:
            sub.offer((topic, key), item)

    def subscriber_count(self, topic: str) -> int:
        """How many clients watch a topic."""
        return len(self._subscribers.get(topic, ()))


class SubscriptionRefused(ValueError):
    """A subscribe request the hub will not serve; the message says why."""
