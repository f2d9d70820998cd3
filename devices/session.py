"""One device connection, owned once: connect, resync, read frames, watch for silence, reconnect.

Transport-agnostic: a session takes an opener that returns an asyncio stream pair, so serial ports, TCP and
test pipes all get the same handshake, watchdog, backoff and resync. It turns Boardcast Wire frames into
`Observation` values for a sink and never raises on what a device sends.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from devices.observations import DeviceEvent, LinkChange, LinkState, Observation, Report
from devices.silence import DeviceNoun as DeviceNoun  # re-exported: every family's session takes them here
from devices.silence import LinkReason as LinkReason
from devices.silence import SilenceWatch as SilenceWatch
from devices.silence import read_some as read_some
from devices.transports.base import ByteReader, ByteWriter, Opener
from devices.transports.serial import DeviceUnavailable, open_serial, parse_wire_serial_url
from devices.wire.codec import PROTOCOL_VERSION, Frame, FrameError, FrameErrorKind, MessageType, WireCodec
from devices.wire.messages import BodyError, Command, EventKind, decode_hello, decode_report, state_reader
from devices.wire.sequence import SeqUnwrapper

_ORPHAN_RESYNC_INTERVAL = 1.0  # at most one resync a second for frames that come before any HELLO
_CLOSE_TIMEOUT = 2.0
_Link = TypeVar("_Link")


class ReadError(Protocol):
    """Bytes from a device that could not be used, in any family's codec (a Wire `FrameError`, a DGT
    `DgtError`, ...): why, in one English sentence, and the bytes."""

    @property
    def kind(self) -> str:
        """What went wrong, as a short code."""
        ...

    @property
    def detail(self) -> str:
        """One English sentence saying what was wrong."""
        ...

    @property
    def raw(self) -> bytes:
        """The bytes, or the first of them."""
        ...


class SessionSink(Protocol):
    """Where a session delivers what it learns; every method is synchronous and must not block."""

    def observe(self, observation: Observation) -> None:
        """Take one observation."""

    def observe_many(self, observations: Sequence[Observation]) -> None:
        """Take observations in order, as `observe` one by one would (a sink may fold them together)."""

    def link_changed(self, change: LinkChange) -> None:
        """Take one connection state change."""

    def frame_error(self, url: str, device_id: str | None, error: ReadError, at: float) -> None:
        """Take one frame that could not be used."""


@dataclass(frozen=True, slots=True)
class Backoff:
    """Exponential reconnect delays with jitter: initial * factor**(attempt-1), capped, minus up to jitter."""

    initial: float = 0.5
    factor: float = 2.0
    maximum: float = 30.0
    jitter: float = 0.2  # fraction taken off at random: devices that dropped together retry apart

    def delay(self, attempt: int, rng: random.Random) -> float:
        """Seconds to wait before reconnect attempt number attempt + 1 (attempt counts failures from 1)."""
        base = min(self.maximum, self.initial * self.factor ** max(0, attempt - 1))
        return base * (1.0 - self.jitter * rng.random())


@dataclass(frozen=True, slots=True)
class SessionStats:
    """Counters of one session since it was made."""

    frames_ok: int  # frames emitted as observations
    frame_errors: int  # frames reported to sink.frame_error
    reconnects: int  # connections lost after being made
    frames_before_hello: int  # frames dropped because no HELLO had come on that connection yet
    bytes_in: int
    connected: bool
    last_seen: float | None  # clock() when bytes last arrived


@dataclass(frozen=True, slots=True)
class _Identity:
    device_id: str
    boot_epoch: int
    family: str
    capabilities: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Ack:
    """A device's answer to a command; `ok` is None when the device cannot acknowledge at all."""

    seq: int
    ok: bool | None
    error: str = ""
    attempts: int = 1


class CommandFailed(RuntimeError):
    """A command that could not be delivered or was never acknowledged; the message says which."""


class NotConnected(CommandFailed):
    """A command not sent: no device is connected to the table (or it has not said HELLO yet)."""


class CommandTarget(Protocol):
    """What takes a table's commands: every device family's session."""

    url: str

    async def command(self, command: Command) -> Ack:
        """Deliver `command`; raise CommandFailed (NotConnected when no device is there) if it cannot."""
        ...


def serial_opener(url: str) -> Opener:
    """An opener for a serial device URL; the URL is checked now, so a typo fails before the first connect.

    The venue file check calls the same `parse_wire_serial_url`, so a URL this would refuse never gets here.
    """
    parse_wire_serial_url(url)

    async def open_() -> tuple[ByteReader, ByteWriter]:
        return await open_serial(url)

    return open_


class LinkReporter:
    """What every kind of session does alike: the reconnect loop, link changes to its sink, the backoff.

    The session sets `url`, `_sink`, `_backoff`, `_clock` and `_rng`, and says its `device_id`.
    """

    url: str
    _sink: SessionSink
    _backoff: Backoff
    _clock: Callable[[], float]
    _rng: random.Random
    reconnects: int = 0  # connections lost after being made

    @property
    def device_id(self) -> str | None:
        """The device id the link changes carry."""
        raise NotImplementedError

    async def _keep_linked(
        self,
        open_link: Callable[[], Awaitable[_Link]],
        serve: Callable[[_Link, int], Awaitable[tuple[LinkReason, bool]]],
    ) -> None:
        """Open, serve and reopen until cancelled, waiting out the backoff after every failure.

        `serve(link, attempt)` says the link is connected, talks to it until it ends and closes it; it returns
        why the link ended and whether the device was heard on it (then the backoff starts over).
        """
        failures = 0
        try:
            while True:
                attempt = failures + 1
                self._link(LinkState.CONNECTING, self._opening_detail(attempt), attempt)
                try:
                    link = await open_link()
                except OSError as exc:
                    failures += 1
                    await self._wait(failures, attempt, open_failure(self.url, exc))
                    continue
                reason, heard_device = await serve(link, attempt)
                self.reconnects += 1
                failures = 1 if heard_device else failures + 1
                await self._wait(failures, attempt, reason)
        except asyncio.CancelledError:
            self._link(LinkState.DISCONNECTED, "session stopped / oturum durduruldu", 0)
            raise

    def _opening_detail(self, attempt: int) -> str:
        return f"opening {self.url} (attempt {attempt}) / {self.url} açılıyor (deneme {attempt})"

    def _connected_detail(self) -> str:
        return f"connected to {self.url} / {self.url} bağlandı"

    async def _wait(self, failures: int, attempt: int, reason: LinkReason) -> None:
        delay = self._backoff.delay(failures, self._rng)
        self._link(LinkState.DISCONNECTED, reason.with_retry(delay), attempt)
        await asyncio.sleep(delay)

    def _link(self, state: LinkState, detail: str, attempt: int) -> None:
        self._sink.link_changed(
            LinkChange(
                url=self.url,
                state=state,
                at=self._clock(),
                detail=detail,
                device_id=self.device_id,
                attempt=attempt,
            )
        )


class DeviceSession(LinkReporter):
    """The one owner of one device connection; run() until cancelled."""

    def __init__(
        self,
        url: str,
        opener: Opener,
        sink: SessionSink,
        *,
        expected_device_id: str | None = None,
        silence_timeout: float = 15.0,
        backoff: Backoff = Backoff(),
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
    ) -> None:
        self.url = url
        self._opener = opener
        self._sink = sink
        self._expected_device_id = expected_device_id
        self._silence_timeout = silence_timeout
        self._backoff = backoff
        self._clock = clock
        self._rng = rng or random.Random()
        self._writer: ByteWriter | None = None
        self._tx_seq = 0
        self._unwrapper = SeqUnwrapper()
        self._identity: _Identity | None = None  # the last device that said HELLO on any connection
        self._codec: WireCodec | None = None  # this connection's
        self._hello_this_connection = False
        self._last_orphan_resync = float("-inf")
        self._frames_ok = 0
        self._observed: list[Observation] = []  # what this read brought, handed over by `_deliver`
        self._frame_errors = 0
        self._frames_before_hello = 0
        self._bytes_in = 0
        self._last_seen: float | None = None
        self._acks: dict[int, asyncio.Future[Ack]] = {}
        self._last_gap_resync = float("-inf")
        self.gap_resyncs = 0

    @classmethod
    def for_url(cls, url: str, sink: SessionSink, **options: Any) -> DeviceSession:
        """A session for a serial device URL."""
        return cls(url, serial_opener(url), sink, **options)

    @property
    def device_id(self) -> str | None:
        """The device id from the last HELLO, or None before any."""
        return self._identity.device_id if self._identity else None

    @property
    def connected(self) -> bool:
        """Whether a connection is open now."""
        return self._writer is not None

    @property
    def stats(self) -> SessionStats:
        """A snapshot of the session counters."""
        return SessionStats(
            frames_ok=self._frames_ok,
            frame_errors=self._frame_errors,
            reconnects=self.reconnects,
            frames_before_hello=self._frames_before_hello,
            bytes_in=self._bytes_in,
            connected=self.connected,
            last_seen=self._last_seen,
        )

    async def run(self) -> None:
        """Connect, read and reconnect until cancelled."""
        await self._keep_linked(self._opener, self._serve_link)

    async def _serve_link(self, link: tuple[ByteReader, ByteWriter], attempt: int) -> tuple[LinkReason, bool]:
        reader, writer = link
        self._writer = writer
        self._link(LinkState.CONNECTED, self._connected_detail(), attempt)
        try:
            return await self._serve(reader)
        finally:
            self._deliver()  # nothing observed is dropped, however the link ends
            self._writer = None
            await close_writer(writer)

    async def send(self, command: Command) -> bool:
        """Write one COMMAND frame, without waiting for an answer; return False if no connection is open."""
        seq = self._tx_seq
        self._tx_seq = (self._tx_seq + 1) & 0xFFFF
        return await self._write(command.encode(seq))

    async def command(self, command: Command, *, retries: int = 3, interval: float = 1.0) -> Ack:
        """Send a command and wait for its ACK, resending the same frame (same seq) up to `retries` times.

        Raise CommandFailed if no connection is open or the device never acknowledges. A device whose HELLO
        lacks the "ack" capability gets the command once and an Ack with ok=None.
        """
        identity = self._identity
        if self._writer is None or identity is None or not self._hello_this_connection:
            raise NotConnected(
                f"{self.url}: no device connected; command {command.cmd!r} not sent / cihaz bağlı değil"
            )
        seq = self._tx_seq
        self._tx_seq = (self._tx_seq + 1) & 0xFFFF
        frame = command.encode(seq)
        if "ack" not in identity.capabilities:
            if not await self._write(frame):
                raise CommandFailed(
                    f"{self.url}: the link closed while sending {command.cmd!r} / bağlantı koptu"
                )
            return Ack(seq, None, "the device does not acknowledge commands", 1)
        answer: asyncio.Future[Ack] = asyncio.get_running_loop().create_future()
        self._acks[seq] = answer
        try:
            for attempt in range(1, retries + 2):
                await self._write(frame)  # a failed write is retried like a lost one
                try:
                    async with asyncio.timeout(interval):
                        ack = await asyncio.shield(answer)
                    return Ack(ack.seq, ack.ok, ack.error, attempt)
                except TimeoutError:
                    continue
        finally:
            self._acks.pop(seq, None)
        raise CommandFailed(
            f"{self.url}: device {identity.device_id} did not acknowledge {command.cmd!r} after "
            f"{retries + 1} tries / cihaz komutu onaylamadı"
        )

    async def _write(self, frame: bytes) -> bool:
        writer = self._writer
        return writer is not None and await write_drained(writer, frame)

    async def _serve(self, reader: ByteReader) -> tuple[LinkReason, bool]:
        codec = self._codec = WireCodec()
        self._hello_this_connection = False
        self._last_orphan_resync = float("-inf")
        heard_device = False
        await self._resync()
        watch = SilenceWatch(self._silence_timeout)
        try:
            while True:
                data = await watch.read(reader)
                if isinstance(data, LinkReason):
                    return data, heard_device
                now = self._clock()
                self._bytes_in += len(data)
                self._last_seen = now
                for item in codec.frames(data):
                    if isinstance(item, Frame):
                        heard_device = True
                        await self._on_frame(item, now)
                    else:
                        self._error(item, now)
                self._deliver()
        finally:
            watch.close()

    async def _on_frame(self, frame: Frame, now: float) -> None:
        if frame.type is MessageType.HELLO:
            self._on_hello(frame, now)
            return
        if not self._hello_this_connection or self._identity is None:
            self._frames_before_hello += 1
            loop_now = asyncio.get_running_loop().time()
            if loop_now - self._last_orphan_resync >= _ORPHAN_RESYNC_INTERVAL:
                self._last_orphan_resync = loop_now
                self._deliver()
                await self._resync()
            return
        try:
            report = decode_report(frame, self._identity.family)
        except BodyError as exc:
            self._error(FrameError(FrameErrorKind.BAD_BODY, f"{exc}.", frame.raw), now)
            return
        if isinstance(report, DeviceEvent) and report.kind == EventKind.ACK.value:
            self._on_ack(report.data)
        before = self._unwrapper.highest
        self._emit(frame, report, now)
        after = self._unwrapper.highest
        if before is not None and after is not None and after > before + 1:
            self._deliver()
            await self._resync_after_gap()

    def _on_ack(self, body: dict[str, Any]) -> None:
        seq, ok = body.get("ack"), body.get("ok")
        if not isinstance(seq, int):
            return
        waiting = self._acks.get(seq)
        if waiting is not None and not waiting.done():
            error = body.get("error")
            waiting.set_result(Ack(seq, bool(ok), error if isinstance(error, str) else ""))

    async def _resync_after_gap(self) -> None:
        """Frames went missing: ask for the full state now, at most once a second."""
        loop_now = asyncio.get_running_loop().time()
        if loop_now - self._last_gap_resync >= _ORPHAN_RESYNC_INTERVAL:
            self._last_gap_resync = loop_now
            self.gap_resyncs += 1
            await self._resync()

    def _on_hello(self, frame: Frame, now: float) -> None:
        try:
            hello = decode_hello(frame.body)
        except BodyError as exc:
            self._error(FrameError(FrameErrorKind.BAD_BODY, f"{exc}.", frame.raw), now)
            return
        if isinstance(frame.body, dict) and "token" in frame.body:
            # Only a TCP gateway reads tokens, from the first HELLO; one here would be written to the log.
            self._hello_this_connection = False
            self._error(
                FrameError(
                    FrameErrorKind.BAD_BODY,
                    f"Device {hello.device_id!r} on {self.url} repeated its secret token in a HELLO; the frame "
                    "is refused so the token is never stored. Send the token only in the first HELLO on TCP.",
                    b"",  # not even the raw bytes: they hold the secret
                ),
                now,
            )
            return
        if self._expected_device_id is not None and hello.device_id != self._expected_device_id:
            self._hello_this_connection = False
            self._error(
                FrameError(
                    FrameErrorKind.WRONG_DEVICE,
                    f"Device {hello.device_id!r} answered on {self.url}, where {self._expected_device_id!r} "
                    "is expected; its frames are ignored until the right device says hello.",
                    frame.raw,
                ),
                now,
            )
            return
        if hello.protocol != PROTOCOL_VERSION:
            self._hello_this_connection = False
            self._error(
                FrameError(
                    FrameErrorKind.UNSUPPORTED_PROTOCOL,
                    f"Device {hello.device_id!r} on {self.url} speaks Boardcast Wire protocol {hello.protocol}; "
                    f"this hub speaks {PROTOCOL_VERSION}. Its frames are ignored; update its firmware.",
                    frame.raw,
                ),
                now,
            )
            return
        identity = _Identity(hello.device_id, hello.boot_epoch, hello.family, frozenset(hello.capabilities))
        if (identity.device_id, identity.boot_epoch) != (
            (self._identity.device_id, self._identity.boot_epoch) if self._identity else None
        ):
            self._unwrapper.reset()
            self._identity = identity
        if self._codec is not None:  # its STATE bodies, read straight into reports from now on
            assert self._identity is not None  # set just above, or the same device's from before
            self._codec.state_reader = state_reader(self._identity.family)
        self._hello_this_connection = True
        self._emit(frame, hello, now)

    def _emit(self, frame: Frame, report: Report, now: float) -> None:
        assert self._identity is not None
        identity = self._identity
        observation = Observation(
            identity.device_id, identity.boot_epoch, self._unwrapper.unwrap(frame.seq), now, report, frame.raw
        )
        self._frames_ok += 1
        self._observed.append(observation)

    def _deliver(self) -> None:
        """Hand the sink what has been observed, in one call: before anything else reaches the sink, before
        the session waits on anything, and once a read's frames are all decoded."""
        if self._observed:
            observed, self._observed = self._observed, []
            self._sink.observe_many(observed)

    def _error(self, error: FrameError, now: float) -> None:
        self._frame_errors += 1
        self._deliver()
        self._sink.frame_error(self.url, self.device_id, error, now)

    async def _resync(self) -> None:
        await self.send(Command.resync())


def open_failure(url: str, exc: OSError) -> LinkReason:
    """Why opening `url` failed, as the link change says it."""
    if isinstance(exc, DeviceUnavailable):
        return LinkReason(exc.english, exc.turkish)
    return LinkReason(f"cannot open {url}: {exc}", f"{url} açılamadı: {exc}")


async def write_drained(writer: ByteWriter, data: bytes) -> bool:
    """Write data and wait until it is sent; False if the link failed (a session retries or reconnects)."""
    try:
        writer.write(data)
        await writer.drain()
    except (OSError, ConnectionError, RuntimeError):
        return False
    return True


async def close_writer(writer: ByteWriter) -> None:
    """Close a stream, waiting a little for it: a port that will not close cleanly is closed anyway."""
    writer.close()
    with contextlib.suppress(Exception):
        async with asyncio.timeout(_CLOSE_TIMEOUT):
            await writer.wait_closed()
