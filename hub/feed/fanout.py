"""Topics and subscribers: how one change reaches every screen, encoded once and written without waiting.

A change is encoded once, as the JSON `{"topic", "version", "data"}`, and once more as the finished
WebSocket frame (server frames are not masked, so every client gets the very same bytes). Delivery is
`websockets.broadcast()`'s shape, made cheaper: no task per client, no per-client encoding; the frame is
written straight into each client's socket while that socket keeps up.

- **Windows.** A topic with few watchers delivers a change at once. A topic watched by thousands (the venue
  wall) gathers what changes within a short window and writes it as one piece per client, so the writes a
  second stay near `writes_per_s` however busy the hall is: the window is `watchers / writes_per_s`
  (capped at `MAX_WINDOW_S`), and the first change after a quiet spell goes out at once.
- **Shapes.** A client that asked for batches gets one JSON array per delivery, the latest of each key;
  any other client gets every change as its own frame (written together, in one system call). A client
  that negotiated permessage-deflate without context takeover (browsers do; `hub.feed.protocol` asks for it) gets
  messages of `DEFLATE_MIN` bytes or more compressed, each on its own, so one compression serves everyone.
- **Clients that fall behind.** A client whose socket holds more than `HIGH_WATER` bytes unsent is taken off
  the direct path and keeps only a cursor per topic (the last change it was given); each topic keeps the
  latest change of each key. A drain timer sends such a client, once its socket has emptied, the latest of
  each key changed since its cursor, so it skips intermediate scores but always gets the latest, costs one
  check per delivery while behind, and holds nothing of its own. A socket that stays full for
  `stuck_after_s` is closed. Nobody else ever waits on it.

A topic never goes back a version: a change older than the last one published to its topic is dropped.
Clients without a direct link (an ASGI server other than the hub's own, or an in-process reader) take
what they are owed from `Subscriber.take`.

Keys: the `venue` topic carries one compact entry per match, keyed by match id, so coalescing keeps the
latest of every match rather than only the latest match to change. Other topics carry whole states.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import Callable
from typing import Any, Protocol

import orjson

SNAPSHOT = "*"
WRITES_PER_S = 20_000  # the fan-out's write budget: what one core sustains beside ingest and the rules
MAX_WINDOW_S = 0.16  # however many watch, a change waits at most this long for its topic's window (the wall)
DIRECT_BELOW_S = 0.001  # a window shorter than this is no window: deliver at once
HIGH_WATER = 16 * 1024  # bytes the kernel would not take (its own buffer is full) before a client is behind
LOW_WATER = 4 * 1024  # ... and below which the drain timer sends it what it missed
DRAIN_EVERY_S = 0.05
CLOSE_STUCK = 1013  # "try again later": the client could not keep up
DEFLATE_BITS = 12  # the LZ77 window compressed messages use; a client allowing less gets them plain
DEFLATE_MIN = 512  # smaller messages go plain: compressing them costs more than it saves


def window_s(watchers: int, writes_per_s: float = WRITES_PER_S) -> float:
    """How long a topic with `watchers` gathers changes before it writes them; 0.0: it writes each at once."""
    window = watchers / writes_per_s
    return 0.0 if window < DIRECT_BELOW_S else min(window, MAX_WINDOW_S)


class Link(Protocol):
    """A client's socket as the fan-out sees it (`hub.feed.protocol.FeedProtocol` is the hub's)."""

    def send_frames(self, data: bytes) -> None:
        """Write finished WebSocket frames; nothing once the connection is closing."""

    def buffered(self) -> int:
        """Bytes written but not yet taken by the socket."""

    def close_stuck(self, code: int, reason: str) -> None:
        """Close a client that stopped reading, dropping what it has not taken."""

    @property
    def deflate(self) -> bool:
        """True when the client takes messages compressed on their own (RFC 7692, no context takeover)."""


def text_frame(payload: bytes, *, deflate: bool = False) -> bytes:
    """A finished, unmasked WebSocket text frame (RFC 6455 §5.2) carrying `payload`.

    With `deflate`, a payload of `DEFLATE_MIN` bytes or more is sent compressed as a message of its own
    (RFC 7692 §7.2.1: RSV1 set, the trailing empty block removed)."""
    first = 0x81
    if deflate and len(payload) >= DEFLATE_MIN:
        compressor = zlib.compressobj(6, zlib.DEFLATED, -DEFLATE_BITS, 5)
        payload = compressor.compress(payload) + compressor.flush(zlib.Z_SYNC_FLUSH)
        payload = payload[:-4] if payload.endswith(b"\x00\x00\xff\xff") else payload
        first = 0xC1
    n = len(payload)
    if n < 126:
        return bytes((first, n)) + payload
    if n < 65536:
        return bytes((first, 126)) + n.to_bytes(2, "big") + payload
    return bytes((first, 127)) + n.to_bytes(8, "big") + payload


class Published:
    """A change as sent: its topic, version and the JSON every subscriber receives."""

    __slots__ = ("_frames", "payload", "seq", "topic", "version")

    def __init__(self, topic: str, version: int, payload: bytes, seq: int = 0) -> None:
        self.topic = topic
        self.version = version
        self.payload = payload
        self.seq = seq  # the fan-out's publishing order, across topics
        self._frames: dict[tuple[bool, bool], bytes] | None = None  # (batch, deflate) -> finished frame

    @property
    def text(self) -> str:
        """The JSON as text."""
        return self.payload.decode()

    def frame(self, batch: bool, deflate: bool) -> bytes:
        """This change alone as a finished frame (in an array for batch clients), built once per shape: a
        snapshot goes to every client that joins at its version."""
        if self._frames is None:
            self._frames = {}
        found = self._frames.get((batch, deflate))
        if found is None:
            payload = b"[" + self.payload + b"]" if batch else self.payload
            found = self._frames[(batch, deflate)] = text_frame(payload, deflate=deflate)
        return found


def encode(topic: str, version: int, data: Any, *, snapshot: bool = False) -> str:
    """The wire text of one change, encoded once for every subscriber."""
    return _encode(topic, version, data, snapshot).decode()


def _encode(topic: str, version: int, data: Any, snapshot: bool = False) -> bytes:
    message: dict[str, Any] = {"topic": topic, "version": version, "data": data}
    if snapshot:
        message["snapshot"] = True
    return orjson.dumps(message)


class Subscriber:
    """One connected client: its topics, its link, and where it stands while it is behind.

    A client on the direct path is written to as changes happen and keeps nothing. A client that is behind
    (or paced, or has no link) keeps only a cursor per topic, the last change it was given: when it can
    take more it gets the latest of each key since then, from its topic's shared table, so a slow phone
    skips intermediate scores, always gets the latest, and costs one check per delivery while behind."""

    __slots__ = (
        "_cursors",
        "_fanout",
        "_pending",
        "_wake",
        "batch",
        "batch_s",
        "closed",
        "coalesced",
        "deflate",
        "direct",
        "id",
        "link",
        "next_send",
        "referee",
        "sent",
        "stuck_since",
        "topics",
    )

    def __init__(self, client_id: int, fanout: Fanout, link: Link | None = None) -> None:
        self.id = client_id
        self._fanout = fanout
        self.topics: dict[str, int] = {}  # topic -> the version it resumed from (0: from a snapshot)
        self.link = link
        self.batch = False  # arrays, one per delivery, rather than a frame per change
        self.deflate = link is not None and link.deflate  # large messages go compressed
        self.batch_s: float | None = None  # if set, at most one message per this many seconds
        self.direct = link is not None  # written to as changes happen (else it keeps cursors)
        self.next_send = 0.0  # loop time before which a client with `batch_s` gets nothing
        self.stuck_since: float | None = None  # loop time its socket last went over HIGH_WATER
        self._pending: dict[str, Published] = {}  # topic -> a snapshot it has not been sent yet
        self._cursors: dict[str, tuple[int, int]] = {}  # topic -> (last seq given, topic's count then)
        self._wake: asyncio.Event | None = None
        self.sent = 0
        self.coalesced = 0
        self.closed = False
        self.referee: str | None = None  # the referee this client proved to be, if any

    def _missed(self, topic: str, seq: int, count: int) -> None:
        """Mark that changes of `topic` after `seq` were not given to this client."""
        if topic not in self._cursors:
            self._cursors[topic] = (seq, count)
            if self._wake is not None:
                self._wake.set()

    def drop_topic(self, topic: str) -> None:
        """Forget a topic and anything owed for it."""
        self.topics.pop(topic, None)
        self._pending.pop(topic, None)
        self._cursors.pop(topic, None)

    @property
    def backlog(self) -> int:
        """Topics with something owed to this client."""
        return len(self._pending.keys() | self._cursors.keys())

    async def take(self) -> list[str]:
        """Wait for frames, then take what is owed in publishing order (clients with no link)."""
        if self._wake is None:
            self._wake = asyncio.Event()
        while not self._pending and not self._cursors:
            self._wake.clear()
            await self._wake.wait()
        return self.take_now()

    def take_now(self) -> list[str]:
        """Take whatever is owed, without waiting."""
        return [i.text for i in self._take_items()]

    def _take_items(self) -> list[Published]:
        """Snapshots first, then the latest of each key changed since each cursor, in publishing order."""
        items = list(self._pending.values())
        self._pending.clear()
        changes: list[Published] = []
        for topic, (seq, count) in self._cursors.items():
            t = self._fanout._topics.get(topic)
            if t is None:
                continue
            # only what its topic has delivered: a change still gathered in the topic's window goes to this
            # client with the window (directly, or as a new mark), never twice and never after a newer one
            newer = [p for p in t.latest.values() if seq < p.seq <= t.delivered_seq]
            self.coalesced += max(0, t.delivered_count - count - len(newer))
            changes += newer
        self._cursors.clear()
        changes.sort(key=_by_seq)
        return items + changes


def _by_seq(item: Published) -> int:
    return item.seq


class _Topic:
    """One topic's watchers and the changes gathered for its next delivery."""

    __slots__ = (
        "count",
        "delivered_count",
        "delivered_seq",
        "last_flush",
        "last_version",
        "latest",
        "outbox",
        "subs",
        "timer",
    )

    def __init__(self) -> None:
        self.subs: set[Subscriber] = set()
        self.latest: dict[str | None, Published] = {}  # key -> its latest change: what late clients get
        self.count = 0  # changes published while watched
        self.delivered_seq = 0  # the last change handed out (written, or marked as owed), not in the outbox
        self.delivered_count = 0  # `count` then
        self.outbox: list[tuple[str | None, Published]] = []
        self.last_flush = float("-inf")
        self.timer: asyncio.TimerHandle | asyncio.Handle | None = None
        self.last_version = 0


SnapshotSource = Callable[[], tuple[int, Any]]  # (version, data or a function that builds it)


class Fanout:
    """Routes published changes to subscribers; knows how to snapshot each topic."""

    def __init__(
        self,
        *,
        max_topics_per_client: int = 64,
        writes_per_s: float = WRITES_PER_S,
        stuck_after_s: float = 10.0,
    ) -> None:
        self.max_topics_per_client = max_topics_per_client
        self.writes_per_s = writes_per_s
        self.stuck_after_s = stuck_after_s
        self._topics: dict[str, _Topic] = {}
        self._sources: list[Callable[[str], SnapshotSource | None]] = []
        self._next_client = 1
        self._snapshots: dict[str, Published] = {}
        self._lagging: set[Subscriber] = set()
        self._drain_timer: asyncio.TimerHandle | None = None
        self._seq = 0  # publishing order across topics
        self.published = 0
        self.stale = 0  # changes dropped because their topic had already published a newer version
        self.closed_stuck = 0
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

    # -- clients ----------------------------------------------------------------------------------------------

    def connect(self, link: Link | None = None) -> Subscriber:
        """A new client; with a link, changes are written straight to its socket."""
        sub = Subscriber(self._next_client, self, link)
        self._next_client += 1
        self.clients.add(sub)
        return sub

    def disconnect(self, sub: Subscriber) -> None:
        """Forget a client and all its subscriptions."""
        sub.closed = True
        sub.direct = False
        for topic in list(sub.topics):
            if (t := self._topics.get(topic)) is not None:
                t.subs.discard(sub)
        sub.topics.clear()
        sub._pending.clear()
        sub._cursors.clear()
        self.clients.discard(sub)
        self._lagging.discard(sub)

    def set_batch(self, sub: Subscriber, batch: bool, every_s: float | None = None) -> None:
        """Arrays rather than single frames; with `every_s`, at most one message per that many seconds."""
        sub.batch = batch
        sub.batch_s = every_s if batch else None
        if sub.batch_s is not None and sub.direct:
            sub.direct = False  # paced clients are served by the drain timer, from their queue
            self._lag(sub)
        elif sub.batch_s is None and sub.link is not None and not sub.direct and sub.stuck_since is None:
            self._lag(sub)  # the drain timer sends what is queued and puts it back on the direct path

    def subscribe(self, sub: Subscriber, topic: str, resume_version: int | None = None) -> None:
        """Subscribe and send the topic's snapshot unless the client already holds its latest version."""
        if topic not in sub.topics and len(sub.topics) >= self.max_topics_per_client:
            raise SubscriptionRefused(
                f"at most {self.max_topics_per_client} topics per client / istemci başına en fazla "
                f"{self.max_topics_per_client} konu"
            )
        source = self.source(topic)
        if source is None:
            raise SubscriptionRefused(f"unknown topic {topic!r} / bilinmeyen konu")
        t = self._topics.get(topic)
        if t is None:
            t = self._topics[topic] = _Topic()
        elif t.outbox:  # what was gathered before this client came goes to those who were here
            self._flush(t)
        t.subs.add(sub)
        version, data = source()
        sub.topics.setdefault(topic, 0)
        if resume_version is not None and resume_version >= version:
            sub.topics[topic] = resume_version
            return
        sub.drop_topic(topic)
        sub.topics[topic] = 0
        self._send(sub, t, self._snapshot(topic, version, data))

    def unsubscribe(self, sub: Subscriber, topic: str) -> None:
        """Stop sending a topic to a client."""
        if (t := self._topics.get(topic)) is not None:
            t.subs.discard(sub)
        sub.drop_topic(topic)

    @property
    def behind(self) -> int:
        """Clients off the direct path: behind, paced, or waiting for the drain timer."""
        return len(self._lagging)

    # -- snapshots --------------------------------------------------------------------------------------------

    def _snapshot(self, topic: str, version: int, data: Any) -> Published:
        """A topic's snapshot. A source that hands a builder (not data) promises its version changes with its
        content, so the snapshot is built and encoded once per version however many clients join."""
        if not callable(data):
            return Published(topic, version, _encode(topic, version, data, True))
        cached = self._snapshots.get(topic)
        if cached is None or cached.version != version:
            cached = Published(topic, version, _encode(topic, version, data(), True))
            self._snapshots[topic] = cached
        return cached

    def forget_snapshot(self, topic: str) -> None:
        """Drop a topic's cached snapshot: its content changed without a new version (a delayed release)."""
        self._snapshots.pop(topic, None)

    # -- publishing -------------------------------------------------------------------------------------------

    def publish(self, topic: str, version: int, data: Any, key: str | None = None) -> None:
        """Send a change to every subscriber of its topic; `data` may be a function that builds it, called
        only when someone watches."""
        self.published += 1
        t = self._topics.get(topic)
        if t is None or not t.subs:
            return
        if version < t.last_version:
            self.stale += 1
            return
        t.last_version = version
        self._seq += 1
        item = Published(
            topic, version, _encode(topic, version, data() if callable(data) else data), self._seq
        )
        t.latest[key] = item
        t.count += 1
        window = window_s(len(t.subs), self.writes_per_s)
        if not window and not t.outbox:
            self._deliver(topic, t, [(key, item)])
            return
        t.outbox.append((key, item))
        if t.timer is None:
            loop = running_loop()
            if loop is None:  # no loop (a plain function using the fan-out): nothing to wait for
                self._flush(t)
                return
            due = t.last_flush + window
            if due <= loop.time():  # the first change after a quiet spell: now, with this turn's others
                t.timer = loop.call_soon(self._flush, t)
            else:
                t.timer = loop.call_at(due, self._flush, t)

    def _flush(self, t: _Topic) -> None:
        if t.timer is not None:
            t.timer.cancel()
            t.timer = None
        items, t.outbox = t.outbox, []
        if (loop := running_loop()) is not None:
            t.last_flush = loop.time()
        if items:
            self._deliver(items[0][1].topic, t, items)

    def _deliver(self, topic: str, t: _Topic, items: list[tuple[str | None, Published]]) -> None:
        """Write `items` to every watcher on the direct path; queue them for the others."""
        built: dict[tuple[bool, bool], bytes] = {}  # (batch, deflate) -> the bytes every such client gets
        n = len(items)
        t.delivered_seq = items[-1][1].seq
        t.delivered_count = t.count
        for sub in t.subs:
            if sub.direct:
                link = sub.link
                assert link is not None
                if link.buffered() < HIGH_WATER:
                    shape = (sub.batch, sub.deflate)
                    data = built.get(shape)
                    if data is None:
                        chosen = _latest(items) if sub.batch else [i for _, i in items]
                        data = built[shape] = _frames(chosen, *shape)
                    link.send_frames(data)
                    sub.sent += n
                    continue
                self._fell_behind(sub)
            if topic not in sub._cursors:  # behind: one mark, whatever the number of changes
                sub._missed(topic, items[0][1].seq - 1, t.count - n)

    def _send(self, sub: Subscriber, t: _Topic, snapshot: Published) -> None:
        """Send a topic's snapshot to one client, now or (if it is behind) before anything else it is owed."""
        if sub.direct:
            assert sub.link is not None
            if sub.link.buffered() < HIGH_WATER:
                sub.link.send_frames(snapshot.frame(sub.batch, sub.deflate))
                sub.sent += 1
                return
            self._fell_behind(sub)
        sub._pending[snapshot.topic] = snapshot
        sub._cursors[snapshot.topic] = (self._seq, t.count)  # the snapshot holds everything so far
        if sub._wake is not None:
            sub._wake.set()

    # -- clients that fall behind -----------------------------------------------------------------------------

    def _fell_behind(self, sub: Subscriber) -> None:
        sub.direct = False
        loop = running_loop()
        sub.stuck_since = loop.time() if loop is not None else 0.0
        self._lag(sub)

    def _lag(self, sub: Subscriber) -> None:
        self._lagging.add(sub)
        if self._drain_timer is None and (loop := running_loop()) is not None:
            self._drain_timer = loop.call_later(DRAIN_EVERY_S, self._drain)

    def _drain(self) -> None:
        """Send queued changes to clients whose sockets emptied; close those stuck too long."""
        self._drain_timer = None
        now = asyncio.get_running_loop().time()
        for sub in list(self._lagging):
            link = sub.link
            if sub.closed or link is None:
                self._lagging.discard(sub)
                continue
            if link.buffered() > LOW_WATER:
                if sub.stuck_since is None:
                    sub.stuck_since = now
                elif now - sub.stuck_since > self.stuck_after_s:
                    self.closed_stuck += 1
                    link.close_stuck(CLOSE_STUCK, "client too slow / istemci çok yavaş")
                    self.disconnect(sub)
                continue
            sub.stuck_since = None
            if now < sub.next_send:
                continue
            items = sub._take_items()
            if items:
                link.send_frames(_frames(items, sub.batch, sub.deflate))
                sub.sent += len(items)
            if sub.batch_s is not None:
                if items:
                    sub.next_send = now + sub.batch_s
                continue  # paced clients stay with the drain timer
            sub.direct = True
            self._lagging.discard(sub)
        if self._lagging:
            self._drain_timer = asyncio.get_running_loop().call_later(DRAIN_EVERY_S, self._drain)


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The running event loop, or None outside one."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _frames(items: list[Published], batch: bool, deflate: bool) -> bytes:
    """What a client gets for `items`: one array of them all, or a frame each."""
    if len(items) == 1:
        return items[0].frame(batch, deflate)
    if batch:
        return text_frame(b"[" + b",".join(i.payload for i in items) + b"]", deflate=deflate)
    return b"".join(text_frame(i.payload, deflate=deflate) for i in items)


def _latest(items: list[tuple[str | None, Published]]) -> list[Published]:
    """The latest change of each key, in the order their keys first changed."""
    if len(items) == 1:
        return [items[0][1]]
    latest: dict[str | None, Published] = {}
    for key, item in items:
        latest[key] = item
    return list(latest.values())


class SubscriptionRefused(ValueError):
    """A subscribe request the hub will not serve; the message says why."""
