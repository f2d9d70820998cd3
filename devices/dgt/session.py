"""One DGT e-board connection (USB CDC-ACM or Bluetooth Classic RFCOMM, both through pyserial).

The session owns the loop around `DgtReader`: open the port, shake hands (reset, serial number, version,
update mode, board dump, clock), say a synthetic HELLO on the board's behalf (a device id from its serial
number, a boot epoch per connection, a growing seq), deliver every change as one observation carrying the
bytes of the message that caused it, keep the link alive (the serial number is asked every second; a board
silent for `silence_timeout` is reconnected) and read the board again after every reconnect. The hub's
commands (DGT 3000 clock commands one at a time, each waiting for its acknowledgement) are
`devices.dgt.commands`; the URL and the port opener are `devices.dgt.port`. It delivers to the same
`SessionSink` a Boardcast Wire session uses and never raises on what a board sends. URL:
``serial:///dev/ttyACM0?protocol=dgt`` or ``serial:///dev/rfcomm0?protocol=dgt`` (9600 baud unless
``&baud=`` says otherwise).
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from devices.dgt.codec import (
    Command as DgtCommand,
)
from devices.dgt.codec import DgtError, MessageId, UpdateMode, encode_command, encode_update_mode
from devices.dgt.commands import DgtCommands, clock_text
from devices.dgt.connection import _Connection
from devices.dgt.messages import BatteryStatus, ClockAck, DgtMessage, SerialNumber, Version
from devices.dgt.port import DGT_BAUDRATE, DgtTarget, dgt_opener, parse_dgt_url
from devices.dgt.reader import DgtReader, DgtReport
from devices.link import Backoff, SessionSink, close_writer
from devices.observations import DeviceEvent, DeviceFamily, Heartbeat, LinkState
from devices.silence import DeviceNoun, LinkReason, read_some
from devices.transports.base import ByteReader, ByteWriter, Opener
from devices.wire.codec import FrameError, FrameErrorKind

__all__ = [  # the URL, the opener and clock_text are imported from here too
    "DGT_BAUDRATE",
    "DGT_MODEL",
    "DgtSession",
    "DgtSessionStats",
    "DgtTarget",
    "clock_text",
    "dgt_device_id",
    "dgt_opener",
    "parse_dgt_url",
]

DGT_MODEL = "DGT e-board"
_BACKOFF = Backoff()
_BOARD = DeviceNoun("board", "tahta", "tahtadan")
_UNANSWERED_LONG_SERIALS = 2  # then ask the 5-digit serial: older boards may not know the long one
_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def dgt_device_id(serial: str) -> str:
    """The device id of a board: "dgt-" and its serial number (characters an id cannot hold become "_")."""
    return "dgt-" + _ID_UNSAFE.sub("_", serial.strip())


@dataclass(frozen=True, slots=True)
class DgtSessionStats:
    """Counters of one DGT session since it was made."""

    observations: int  # observations delivered
    errors: int  # DGT errors (and refusals) reported to sink.frame_error
    reconnects: int  # connections lost after being made
    keepalives_answered: int  # serial numbers received after the handshake
    dumps_asked: int  # SEND_BRD sent (handshake, field updates before a dump, resync)
    bytes_in: int
    connected: bool
    identified: bool  # the board said who it is on this connection
    last_seen: float | None  # clock() when bytes last arrived


class _LinkEnded(Exception):
    """Raised inside a connection's task group to end the connection, saying why."""

    def __init__(self, reason: LinkReason) -> None:
        super().__init__(reason.english)
        self.reason = reason


class DgtSession(DgtCommands):
    """The one owner of one DGT board connection; run() until cancelled."""

    FAMILY = DeviceFamily.CHESS_BOARD
    CAPABILITIES = ("ack", "resync", "show_text", "set_clock")
    ANONYMOUS_ID = "dgt-unknown"
    model = DGT_MODEL

    def __init__(
        self,
        url: str,
        sink: SessionSink,
        *,
        opener: Opener | None = None,
        expected_device_id: str | None = None,
        keepalive_s: float = 1.0,
        silence_timeout: float = 5.0,
        handshake_timeout: float = 3.0,
        dump_retry_s: float = 1.0,
        clock_retry_s: float = 2.0,
        clock_retries: int = 3,
        battery_interval_s: float = 60.0,
        backoff: Backoff = _BACKOFF,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
    ) -> None:
        self.target = parse_dgt_url(url)
        self.url = url
        self._opener = opener or dgt_opener(self.target)
        self._sink = sink
        self._expected_device_id = expected_device_id
        self._keepalive_s = keepalive_s
        self._silence_timeout = silence_timeout
        self._handshake_timeout = handshake_timeout
        self._dump_retry_s = dump_retry_s
        self._clock_retry_s = clock_retry_s
        self._clock_retries = clock_retries
        self._battery_interval_s = battery_interval_s
        self._backoff = backoff
        self._clock = clock
        self._rng = rng or random.Random()
        self.reader = DgtReader()
        self._connection: _Connection | None = None
        self._long_serials: bool | None = None  # whether this board answers the long serial number
        self._device_id: str | None = None
        self._command_seq = 0
        self._clock_lock = asyncio.Lock()  # the DGT 3000 takes one command at a time
        self._exchange = None
        self._end_text_at = None  # loop time to put the times back on the clock
        self._text_changed = asyncio.Event()
        self._errors = 0
        self._keepalives_answered = 0
        self._dumps_asked = 0
        self._bytes_in = 0
        self._last_seen: float | None = None

    @property
    def device_id(self) -> str | None:
        """The board's device id ("dgt-" and its serial number) once it has said it, else None."""
        return self._device_id

    @property
    def connected(self) -> bool:
        """Whether a connection is open now."""
        return self._connection is not None

    @property
    def stats(self) -> DgtSessionStats:
        """A snapshot of the session counters."""
        return DgtSessionStats(
            observations=self._observations,
            errors=self._errors,
            reconnects=self.reconnects,
            keepalives_answered=self._keepalives_answered,
            dumps_asked=self._dumps_asked,
            bytes_in=self._bytes_in,
            connected=self.connected,
            identified=self.identified,
            last_seen=self._last_seen,
        )

    # -- the connection loop ------------------------------------------------------------------------------

    async def run(self) -> None:
        """Connect, read and reconnect until cancelled."""
        await self._keep_linked(self._opener, self._serve_link)

    async def _serve_link(self, link: tuple[ByteReader, ByteWriter], attempt: int) -> tuple[LinkReason, bool]:
        reader, writer = link
        connection = _Connection(writer, asyncio.get_running_loop().time())
        self._connection = connection
        self._link(LinkState.CONNECTED, self._connected_detail(), attempt)
        try:
            return await self._serve(connection, reader), connection.identified
        finally:
            self._connection = None
            for waiter in connection.dump_waiters:
                if not waiter.done():
                    waiter.set_result(False)
            await close_writer(writer)

    async def _serve(self, connection: _Connection, reader: ByteReader) -> LinkReason:
        self.reader.reconnected()  # whatever was on the board before, it must be read again
        connection.updates_before_dump = self.reader.updates_before_dump
        # Reset first: a board left in an update mode would mix field updates into the answers.
        await self._write(connection, encode_command(DgtCommand.SEND_RESET))
        await self._ask_serial(connection)
        await self._write(connection, encode_command(DgtCommand.SEND_VERSION))
        reason: LinkReason | None = None
        try:
            async with asyncio.TaskGroup() as group:
                group.create_task(self._read_loop(connection, reader))
                group.create_task(self._keep_alive(connection))
                group.create_task(self._text_timer(connection))
        except* _LinkEnded as ended:
            first = ended.exceptions[0]
            assert isinstance(first, _LinkEnded)
            reason = first.reason
        assert reason is not None  # the loops only ever end by raising _LinkEnded
        return reason

    async def _read_loop(self, connection: _Connection, reader: ByteReader) -> None:
        while True:
            data = await read_some(reader, self._silence_timeout, _BOARD)
            if isinstance(data, LinkReason):
                raise _LinkEnded(data)
            now = self._clock()
            self._bytes_in += len(data)
            self._last_seen = now
            for item in self.reader.feed(data):
                await self._on_item(connection, item, now)
            await self._dump_if_updates_came_first(connection)

    async def _keep_alive(self, connection: _Connection) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self._keepalive_s)
            if not connection.identified:
                await self._handshake_tick(connection, self._clock())
                continue
            # The answer is what keeps the link from going silent: UPDATE_NICE sends nothing while idle.
            await self._write(connection, _serial_command(connection.long_serial))
            if self.reader.needs_dump and loop.time() - connection.dump_asked_at >= self._dump_retry_s:
                await self._ask_dump(connection)
            if (
                self.target.bluetooth
                and loop.time() - connection.battery_asked_at >= self._battery_interval_s
            ):
                connection.battery_asked_at = loop.time()
                await self._write(connection, encode_command(DgtCommand.SEND_BATTERY_STATUS))

    async def _handshake_tick(self, connection: _Connection, now: float) -> None:
        timed_out = asyncio.get_running_loop().time() - connection.started >= self._handshake_timeout
        if (
            connection.serial is None
            and connection.short_serial is not None
            and (connection.long_asks_since_short >= _UNANSWERED_LONG_SERIALS or timed_out)
        ):
            connection.serial = connection.short_serial  # an older board: it only knows the 5-digit number
        if connection.serial is not None and (connection.version is not None or timed_out):
            await self._identify(connection, now)  # a version that never came is "unknown"
            return
        if timed_out:
            raise _LinkEnded(
                LinkReason(
                    f"the board did not say its serial number within {self._handshake_timeout:g} s; "
                    "is it a DGT board, switched on?",
                    f"tahta {self._handshake_timeout:g} sn içinde seri numarasını söylemedi; "
                    "DGT tahtası mı, açık mı?",
                )
            )
        if connection.serial is None:
            await self._ask_serial(connection)
        if connection.version is None:
            await self._write(connection, encode_command(DgtCommand.SEND_VERSION))

    async def _ask_serial(self, connection: _Connection) -> None:
        """Ask who the board is: the long number, which names a board for good, unless it only knows the short one.

        A board that does not answer the long question twice is asked the short one as well; its answer is
        used only if the long one still does not come, so the device id of a board never changes.
        """
        if self._long_serials is False:
            await self._write(connection, _serial_command(long=False))
            return
        connection.long_asks += 1
        if connection.short_serial is not None:
            connection.long_asks_since_short += 1
        await self._write(connection, _serial_command(long=True))
        if self._long_serials is None and connection.long_asks > _UNANSWERED_LONG_SERIALS:
            await self._write(connection, _serial_command(long=False))

    async def _identify(self, connection: _Connection, now: float) -> None:
        serial = connection.serial
        assert serial is not None
        device_id = dgt_device_id(serial.serial)
        if self._expected_device_id is not None and device_id != self._expected_device_id:
            self._error(
                FrameError(
                    FrameErrorKind.WRONG_DEVICE,
                    f"Board {device_id!r} answered on {self.url}, where {self._expected_device_id!r} is "
                    "expected; the connection is closed and tried again until the right board is there.",
                    serial.raw,
                ),
                now,
            )
            raise _LinkEnded(
                LinkReason(
                    f"board {device_id} is not the expected {self._expected_device_id}",
                    f"{device_id} tahtası beklenen {self._expected_device_id} değil",
                )
            )
        self._device_id = device_id
        self._long_serials = connection.long_serial = serial.long
        self.firmware = str(connection.version) if connection.version else "unknown"
        self._new_boot()
        connection.identified = True
        raw = serial.raw + (connection.version.raw if connection.version else b"")
        self._emit(self.hello, raw, now)
        pending, connection.pending = connection.pending, []
        for item, at in pending:
            await self._dispatch(connection, item, at)
        # Update mode before the dump: a move made between the two is then in the dump or in an update.
        await self._write(connection, encode_update_mode(UpdateMode.UPDATE_NICE))
        await self._ask_dump(connection)
        await self._write(connection, encode_command(DgtCommand.SEND_CLK))
        if self.target.bluetooth:
            connection.battery_asked_at = asyncio.get_running_loop().time()
            await self._write(connection, encode_command(DgtCommand.SEND_BATTERY_STATUS))

    # -- what the board says ------------------------------------------------------------------------------

    async def _on_item(
        self, connection: _Connection, item: DgtReport | DgtMessage | DgtError, now: float
    ) -> None:
        if isinstance(item, DgtError):
            self._error(item, now)
            return
        if connection.identified:
            await self._dispatch(connection, item, now)
            return
        if isinstance(item, SerialNumber):
            if item.long or self._long_serials is False:
                connection.serial = connection.serial or item
            else:
                connection.short_serial = connection.short_serial or item
        elif isinstance(item, Version):
            connection.version = item
        else:
            connection.pending.append((item, now))  # said before the board said who it is: kept for later
            return
        if connection.serial is not None and connection.version is not None:
            await self._identify(connection, now)

    async def _dispatch(self, connection: _Connection, item: DgtReport | DgtMessage, now: float) -> None:
        match item:
            case DgtReport(report=report, raw=raw):
                self._emit(report, raw, now)
                if raw[:1] == bytes([MessageId.BOARD_DUMP]):
                    for waiter in connection.dump_waiters:
                        if not waiter.done():
                            waiter.set_result(True)
                    connection.dump_waiters.clear()
            case SerialNumber():
                self._on_serial(connection, item)
            case Version():
                pass  # an answer to the handshake's second ask; the HELLO already carries it
            case BatteryStatus(percent=percent, raw=raw):
                self._emit(Heartbeat(battery=percent), raw, now)
            case ClockAck():
                self._on_clock_ack(item, now)
            case _:
                # Bus address, trademark, EEPROM log: nothing the session asked for, kept for the log.
                self._emit(DeviceEvent("dgt_message", {"message": type(item).__name__}), item.raw, now)

    def _on_serial(self, connection: _Connection, serial: SerialNumber) -> None:
        self._keepalives_answered += 1
        known = connection.serial
        if known is not None and serial.long == known.long and serial.serial != known.serial:
            raise _LinkEnded(
                LinkReason(
                    f"another board (serial {serial.serial}) now answers on this port; reading it afresh",
                    f"bu portta artık başka bir tahta (seri {serial.serial}) var; yeniden okunuyor",
                )
            )

    async def _dump_if_updates_came_first(self, connection: _Connection) -> None:
        """Field updates before any dump describe changes to an unknown board: ask for the whole board."""
        if not connection.identified or not self.reader.needs_dump:
            return
        if self.reader.updates_before_dump == connection.updates_before_dump:
            return
        connection.updates_before_dump = self.reader.updates_before_dump
        if asyncio.get_running_loop().time() - connection.dump_asked_at >= self._dump_retry_s:
            await self._ask_dump(connection)

    async def _ask_dump(self, connection: _Connection) -> None:
        connection.dump_asked_at = asyncio.get_running_loop().time()
        self._dumps_asked += 1
        await self._write(connection, encode_command(DgtCommand.SEND_BRD))

    # -- plumbing -----------------------------------------------------------------------------------------

    def _error(self, error: DgtError | FrameError, now: float) -> None:
        self._errors += 1
        self._sink.frame_error(self.url, self._device_id, error, now)


def _serial_command(long: bool) -> bytes:
    return encode_command(DgtCommand.RETURN_LONG_SERIALNR if long else DgtCommand.RETURN_SERIALNR)
