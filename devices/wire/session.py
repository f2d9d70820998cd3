"""One Boardcast Wire device connection in asyncio: the thin shell that runs a `WireProtocol` over a link.

Transport-agnostic: a session takes an opener that returns an asyncio stream pair, so serial ports, TCP and
test pipes all get the same handshake, watchdog, backoff and resync. What a device said, what to send it and
when anything is due are the protocol's (`devices.wire.protocol`); this shell reads, writes, sleeps until
the protocol's next deadline and hands what came out to the sink. It never raises on what a device sends.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from devices.command import Ack, CommandFailed
from devices.link import Backoff, LinkReporter, SessionSink, close_writer, write_drained
from devices.observations import LinkState, Observation
from devices.silence import LinkReason
from devices.transports.base import ByteReader, ByteWriter, Opener
from devices.transports.serial import open_serial, parse_wire_serial_url
from devices.wire.messages import Command
from devices.wire.protocol import NO_ACK, CommandAnswered, CommandUnanswered, Rejected, WireProtocol

_READ_SIZE = 4096
_BACKOFF = Backoff()


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


def serial_opener(url: str) -> Opener:
    """An opener for a serial device URL; the URL is checked now, so a typo fails before the first connect.

    The venue file check calls the same `parse_wire_serial_url`, so a URL this would refuse never gets here.
    """
    parse_wire_serial_url(url)

    async def open_() -> tuple[ByteReader, ByteWriter]:
        return await open_serial(url)

    return open_


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
        backoff: Backoff = _BACKOFF,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
    ) -> None:
        self.url = url
        self._opener = opener
        self._sink = sink
        self._backoff = backoff
        self._clock = clock
        self._rng = rng or random.Random()
        self.protocol = WireProtocol(
            url, expected_device_id=expected_device_id, silence_timeout=silence_timeout
        )
        self._writer: ByteWriter | None = None
        self._reading: asyncio.Task[LinkReason] | None = None  # this connection's read loop
        self._answers: dict[int, asyncio.Future[Ack]] = {}
        self._deadline_moved = asyncio.Event()  # a command made a deadline sooner than the ticker sleeps to

    @classmethod
    def for_url(cls, url: str, sink: SessionSink, **options: Any) -> DeviceSession:
        """A session for a serial device URL."""
        return cls(url, serial_opener(url), sink, **options)

    @property
    def device_id(self) -> str | None:
        """The device id from the last HELLO, or None before any."""
        return self.protocol.device_id

    @property
    def connected(self) -> bool:
        """Whether a connection is open now."""
        return self._writer is not None

    @property
    def gap_resyncs(self) -> int:
        """Resyncs asked because frames went missing."""
        return self.protocol.gap_resyncs

    @property
    def stats(self) -> SessionStats:
        """A snapshot of the session counters."""
        protocol = self.protocol
        return SessionStats(
            frames_ok=protocol.frames_ok,
            frame_errors=protocol.frame_errors,
            reconnects=self.reconnects,
            frames_before_hello=protocol.frames_before_hello,
            bytes_in=protocol.bytes_in,
            connected=self.connected,
            last_seen=protocol.last_seen,
        )

    async def run(self) -> None:
        """Connect, read and reconnect until cancelled."""
        async with asyncio.TaskGroup() as group:
            group.create_task(self._tick_loop())
            await self._keep_linked(self._opener, self._serve_link)

    async def send(self, command: Command) -> bool:
        """Write one COMMAND frame, without waiting for an answer; return False if no connection is open."""
        self.protocol.send(command)
        return await self._flush()

    async def command(self, command: Command, *, retries: int = 3, interval: float = 1.0) -> Ack:
        """Send a command and wait for its ACK, resending the same frame (same seq) up to `retries` times.

        Raise CommandFailed if no connection is open or the device never acknowledges. A device whose HELLO
        lacks the "ack" capability gets the command once and an Ack with ok=None.
        """
        seq = self.protocol.command(command, _monotonic(), retries=retries, interval=interval)
        answer: asyncio.Future[Ack] = asyncio.get_running_loop().create_future()
        self._answers[seq] = answer
        try:
            self._deliver()  # a device without ACKs is answered at once
            written = await self._flush()  # a failed write is retried like a lost one
            if answer.done() and answer.result().error == NO_ACK and not written:
                raise CommandFailed(
                    f"{self.url}: the link closed while sending {command.cmd!r} / bağlantı koptu"
                )
            self._deadline_moved.set()
            return await answer
        finally:
            self._answers.pop(seq, None)
            self.protocol.forget(seq)

    async def _serve_link(self, link: tuple[ByteReader, ByteWriter], attempt: int) -> tuple[LinkReason, bool]:
        reader, writer = link
        self._writer = writer
        self._link(LinkState.CONNECTED, self._connected_detail(), attempt)
        self.protocol.connection_made(_monotonic())
        self._deadline_moved.set()  # the silence deadline is new
        reading = self._reading = asyncio.get_running_loop().create_task(self._read_loop(reader))
        try:
            await self._flush()  # the resync every connection starts with
            await asyncio.wait([reading])
            reason = self.protocol.close_reason if reading.cancelled() else reading.result()
            assert reason is not None  # the read loop is cancelled only when the protocol drops the link
            return reason, self.protocol.heard_device
        finally:
            reading.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reading
            self._reading = None
            self._deliver()  # nothing observed is dropped, however the link ends
            self.protocol.connection_lost()
            self._writer = None
            await close_writer(writer)

    async def _read_loop(self, reader: ByteReader) -> LinkReason:
        """Read until the link fails or closes (a silent link is ended by the ticker cancelling this)."""
        while True:
            try:
                data = await reader.read(_READ_SIZE)
            except (OSError, ConnectionError) as exc:
                return LinkReason(f"read failed: {exc}", f"okuma hatası: {exc}")
            if not data:
                return LinkReason("the device closed the connection", "cihaz bağlantıyı kapattı")
            self.protocol.receive_data(data, _monotonic(), self._clock())
            self._deliver()
            await self._flush()

    async def _tick_loop(self) -> None:
        """Call the protocol's `tick` whenever its next deadline comes, for as long as the session runs.

        One sleep per deadline, not one per read: a deadline that moved later (bytes came) is slept to again
        when the earlier one comes, and only a command, which can make it sooner, wakes this early.
        """
        while True:
            deadline = self.protocol.next_deadline()
            self._deadline_moved.clear()
            if deadline is None:
                await self._deadline_moved.wait()
                continue
            delay = deadline - _monotonic()
            if delay > 0:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(delay):
                        await self._deadline_moved.wait()
                continue
            self.protocol.tick(_monotonic())
            self._deliver()
            await self._flush()
            if self.protocol.close_reason is not None and self._reading is not None:
                self._reading.cancel()

    async def _flush(self) -> bool:
        """Write what the protocol has to send; False if no connection is open or the write failed."""
        data = self.protocol.data_to_send()
        writer = self._writer
        if writer is None:
            return False
        return not data or await write_drained(writer, data)

    def _deliver(self) -> None:
        """Hand the sink what the protocol produced, in order: observations between two errors in one call."""
        run: list[Observation] = []
        for event in self.protocol.events_received():
            if isinstance(event, Observation):
                run.append(event)
                continue
            if run:
                self._sink.observe_many(run)
                run = []
            if isinstance(event, Rejected):
                self._sink.frame_error(self.url, self.device_id, event.error, event.at)
            elif isinstance(event, CommandAnswered):
                self._answer(event.seq, event.ack)
            elif isinstance(event, CommandUnanswered):
                self._answer(event.seq, CommandFailed(event.message))
        if run:
            self._sink.observe_many(run)

    def _answer(self, seq: int, outcome: Ack | CommandFailed) -> None:
        waiting = self._answers.get(seq)
        if waiting is None or waiting.done():
            return
        if isinstance(outcome, Ack):
            waiting.set_result(outcome)
        else:
            waiting.set_exception(outcome)


def _monotonic() -> float:
    return asyncio.get_running_loop().time()
