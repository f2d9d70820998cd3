"""The asyncio shell of a sans-I/O session protocol: one link at a time, read, written and ticked.

A family's session protocol (`devices/<family>/protocol.py`) decides everything: what to
send, what a device said, when anything is due and when a link must be dropped. `ProtocolShell` only moves
bytes between it and the link, calls its `tick` when its next deadline comes and hands its events to the
sink, in order; the reconnect loop and its backoff are `LinkReporter`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import Callable
from typing import ClassVar, Protocol

from devices.command import Ack, CommandFailed
from devices.events import CommandAnswered, CommandUnanswered, Rejected, SessionEvent
from devices.link import LinkReporter, close_writer, write_drained
from devices.observations import LinkState, Observation
from devices.silence import DeviceNoun, LinkReason, closed_by, read_failed
from devices.transports.base import ByteReader, ByteWriter, Opener, PushReader

_READ_SIZE = 4096


class SessionProtocol(Protocol):
    """What a shell asks of a family's session protocol; `now` is monotonic, `at` the wall time."""

    close_reason: LinkReason | None  # set when the link must be dropped

    @property
    def heard_device(self) -> bool:
        """Whether the device was heard on this link (then the backoff starts over)."""
        ...

    @property
    def device_id(self) -> str | None:
        """The device id the link changes and errors carry."""
        ...

    def connection_made(self, now: float, at: float) -> None:
        """A link opened."""

    def connection_lost(self) -> None:
        """The link ended."""

    def receive_data(self, data: bytes, now: float, at: float) -> None:
        """Bytes came."""

    def tick(self, now: float, at: float) -> None:
        """Act on what is due."""

    def data_to_send(self) -> bytes:
        """The bytes to write now."""
        ...

    def events_received(self) -> list[SessionEvent]:
        """What happened since the last call, in order."""
        ...

    def next_deadline(self) -> float | None:
        """When `tick` must next be called."""
        ...

    def forget(self, seq: int, now: float) -> None:
        """Stop working on command `seq`."""


class ProtocolShell(LinkReporter):
    """Runs `protocol` over the links `_keep_linked` opens; the session sets `protocol` and what
    `LinkReporter` needs, and calls `_shell_init()`."""

    protocol: SessionProtocol
    _noun: DeviceNoun = DeviceNoun()

    def _shell_init(self) -> None:
        self._writer: ByteWriter | None = None
        self._reading: asyncio.Task[LinkReason] | None = None  # this link's read loop
        self._answers: dict[int, asyncio.Future[Ack]] = {}
        self._deadline_moved = asyncio.Event()  # a deadline came sooner than the ticker sleeps to

    @property
    def device_id(self) -> str | None:
        """The device id the protocol knows, or None before the device said it."""
        return self.protocol.device_id

    @property
    def connected(self) -> bool:
        """Whether a connection is open now."""
        return self._writer is not None

    async def _run_shell(self, open_link: Opener) -> None:
        """Open, serve and reopen until cancelled, ticking the protocol all along."""
        async with asyncio.TaskGroup() as group:
            group.create_task(self._tick_loop())
            await self._keep_linked(open_link, self._serve_link)

    async def _await_answer(self, seq: int) -> Ack:
        """Send what the protocol queued for command `seq` and wait for its outcome."""
        answer: asyncio.Future[Ack] = asyncio.get_running_loop().create_future()
        self._answers[seq] = answer
        try:
            self._deliver()
            await self._flush()  # a failed write is retried like a lost one
            self._deadline_moved.set()
            return await answer
        finally:
            self._answers.pop(seq, None)
            self.protocol.forget(seq, _monotonic())

    async def _serve_link(self, link: tuple[ByteReader, ByteWriter], attempt: int) -> tuple[LinkReason, bool]:
        reader, writer = link
        self._writer = writer
        self._link(LinkState.CONNECTED, self._connected_detail(), attempt)
        self.protocol.connection_made(_monotonic(), self._clock())
        self._deadline_moved.set()  # the link's deadlines are new
        reading = self._reading = asyncio.get_running_loop().create_task(self._read_loop(reader))
        try:
            await self._flush()  # what every link starts with
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
            self._deliver()  # what ended with the link (a resync that can no longer come)
            self._writer = None
            await close_writer(writer)

    async def _read_loop(self, reader: ByteReader) -> LinkReason:
        """Read until the link fails or closes, or the protocol drops it (it is ended then from outside)."""
        if isinstance(reader, PushReader):
            return await self._take_pushed(reader)
        protocol = self.protocol
        while True:
            try:
                data = await reader.read(_READ_SIZE)
            except (OSError, ConnectionError) as exc:
                return read_failed(exc)
            if not data:
                return closed_by(self._noun)
            protocol.receive_data(data, _monotonic(), self._clock())
            self._deliver()
            await self._flush()
            if protocol.close_reason is not None:
                return protocol.close_reason

    async def _take_pushed(self, reader: PushReader) -> LinkReason:
        """`_read_loop` for a link that hands each read over in the transport's callback. The reads of one
        turn of the event loop are taken together, in the order they came, by one callback at the turn's end
        (`_ReadRound`): no task is woken per read, and every port found readable is read before any work."""
        protocol = self.protocol
        failure: list[BaseException] = []
        pending: list[bytes] = []

        def take() -> None:
            if not pending:  # taken already, as the link ended
                return
            data = b"".join(pending) if len(pending) > 1 else pending[0]
            pending.clear()
            try:
                protocol.receive_data(data, _monotonic(), self._clock())
                self._deliver()
                self._write_now()
            except Exception as exc:  # a fault of ours: it ends the session as it would the read loop
                failure.append(exc)
            if failure or protocol.close_reason is not None:
                reader.push = None
                reader.feed_eof()

        def push(data: bytes) -> None:
            if not pending:
                _ReadRound.of(asyncio.get_running_loop()).add(take)
            pending.append(data)

        reader.push = push
        try:
            if buffered := reader.take_buffered():  # what came before the link was handed over
                push(buffered)
            try:
                await reader.read(_READ_SIZE)  # returns at the link's end: every byte goes to `push`
            except (OSError, ConnectionError) as exc:
                return read_failed(exc)
        finally:
            reader.push = None
            take()  # what came in the link's last turn, however it ended: nothing read is dropped
        if failure:
            raise failure[0]
        return protocol.close_reason or closed_by(self._noun)

    def _write_now(self) -> None:
        """Write what the protocol has to send (a resync, an acknowledgement) without waiting for it to drain:
        such writes are a few bytes, and the next `_flush` waits for them."""
        data = self.protocol.data_to_send()
        writer = self._writer
        if data and writer is not None:
            with contextlib.suppress(OSError, ConnectionError, RuntimeError):
                writer.write(data)

    async def _tick_loop(self) -> None:
        """Call the protocol's `tick` whenever its next deadline comes, for as long as the session runs.

        One sleep per deadline, not one per read: a deadline that moved later (bytes came) is slept to again
        when the earlier one comes; only what can make it sooner (a command, a new link) wakes this early.
        """
        protocol = self.protocol
        while True:
            deadline = protocol.next_deadline()
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
            protocol.tick(_monotonic(), self._clock())
            self._deliver()
            await self._flush()
            if protocol.close_reason is not None and self._reading is not None:
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
                self._answer(event.seq, event.failure)
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


class _ReadRound:
    """The reads of one turn of an event loop, taken by one callback once the loop has run every port's."""

    _rounds: ClassVar[weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _ReadRound]] = (
        weakref.WeakKeyDictionary()
    )

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._takes: list[Callable[[], None]] = []

    @classmethod
    def of(cls, loop: asyncio.AbstractEventLoop) -> _ReadRound:
        """The loop's round."""
        found = cls._rounds.get(loop)
        if found is None:
            found = cls._rounds[loop] = cls(loop)
        return found

    def add(self, take: Callable[[], None]) -> None:
        """Call `take` with this turn's other reads."""
        if not self._takes:
            self._loop.call_soon(self._run)
        self._takes.append(take)

    def _run(self) -> None:
        takes, self._takes = self._takes, []
        for take in takes:
            take()


def _monotonic() -> float:
    return asyncio.get_running_loop().time()
