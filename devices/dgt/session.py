"""One DGT e-board connection (USB CDC-ACM or Bluetooth Classic RFCOMM, both through pyserial).

The session owns the loop around `DgtReader`: open the port, shake hands (reset, serial number, version,
update mode, board dump, clock), say a synthetic HELLO on the board's behalf (a device id from its serial
number, a boot epoch per connection, a growing seq), deliver every change as one observation carrying the
bytes of the message that caused it, keep the link alive (the serial number is asked every second; a board
silent for `silence_timeout` is reconnected), read the board again after every reconnect, and send DGT 3000
clock commands one at a time, each waiting for its acknowledgement. It delivers to the same `SessionSink` a
Boardcast Wire session uses and never raises on what a board sends. URL:
``serial:///dev/ttyACM0?protocol=dgt`` or ``serial:///dev/rfcomm0?protocol=dgt`` (9600 baud unless
``&baud=`` says otherwise).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from devices.dgt.codec import (
    ClockCommand,
    ClockRun,
    DgtError,
    MessageId,
    UpdateMode,
    encode_clock_end_text,
    encode_clock_set_and_run,
    encode_clock_text,
    encode_command,
    encode_update_mode,
)
from devices.dgt.codec import (
    Command as DgtCommand,
)
from devices.dgt.messages import (
    BatteryStatus,
    ClockAck,
    DgtMessage,
    SerialNumber,
    Version,
)
from devices.dgt.reader import DgtReader, DgtReport
from devices.observations import DeviceEvent, DeviceFamily, Heartbeat, LinkState
from devices.session import (
    Ack,
    Backoff,
    CommandFailed,
    DeviceNoun,
    LinkReason,
    NotConnected,
    SessionSink,
    close_writer,
    read_some,
    write_drained,
)
from devices.synthetic import SyntheticIdentity
from devices.transports.base import ByteReader, ByteWriter, Opener
from devices.transports.serial import open_serial, parse_serial_url
from devices.wire.codec import FrameError, FrameErrorKind
from devices.wire.messages import Command, CommandName

DGT_BAUDRATE = 9600
DGT_MODEL = "DGT e-board"
_BACKOFF = Backoff()
_BOARD = DeviceNoun("board", "tahta", "tahtadan")
_UNANSWERED_LONG_SERIALS = 2  # then ask the 5-digit serial: older boards may not know the long one
_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")
_ASCII_FOR = str.maketrans("çğıöşüÇĞİÖŞÜâîûÂÎÛ", "cgiosuCGIOSUaiuAIU")


@dataclass(frozen=True, slots=True)
class DgtTarget:
    """Which port to open and how, read from a ``serial://…?protocol=dgt`` URL."""

    url: str
    port: str
    baudrate: int
    bluetooth: bool  # an RFCOMM port (or ``&bt=1``): the board has a battery to ask about


def parse_dgt_url(url: str) -> DgtTarget:
    """Read ``serial:///dev/ttyACM0?protocol=dgt[&baud=9600][&bt=1]``; raise ValueError naming the URL."""
    if urlsplit(url).scheme != "serial":
        raise ValueError(
            f"device URL {url!r} is not a DGT board; write it as serial:///dev/ttyACM0?protocol=dgt"
        )
    target = parse_serial_url(url)  # every option checked: baud, protocol and bt are the only ones taken
    if target.protocol != "dgt":
        raise ValueError(
            f"device URL {url!r} is not a DGT board; write it as serial:///dev/ttyACM0?protocol=dgt"
        )
    query = parse_qs(urlsplit(url).query, keep_blank_values=True)
    baudrate = target.baudrate if "baud" in query else DGT_BAUDRATE
    bt = query.get("bt", ["0"])[-1]
    if bt not in _BT_VALUES:
        raise ValueError(f"device URL {url!r}: bt must be 1 (a Bluetooth board) or 0, got {bt!r}")
    bluetooth = "rfcomm" in target.port or _BT_VALUES[bt]
    return DgtTarget(url, target.port, baudrate, bluetooth)


_BT_VALUES = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}


def dgt_device_id(serial: str) -> str:
    """The device id of a board: "dgt-" and its serial number (characters an id cannot hold become "_")."""
    return "dgt-" + _ID_UNSAFE.sub("_", serial.strip())


def dgt_opener(target: DgtTarget) -> Opener:
    """An opener for a DGT port at the board's baud rate (9600 unless the URL says otherwise)."""
    separator = "&" if urlsplit(target.url).query else "?"
    url = target.url if "baud=" in target.url else f"{target.url}{separator}baud={target.baudrate}"

    async def open_() -> tuple[ByteReader, ByteWriter]:
        return await open_serial(url)

    return open_


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


@dataclass(eq=False)
class _Connection:
    """What the session knows about the board on the current connection."""

    writer: ByteWriter
    started: float  # loop time when the port opened
    serial: SerialNumber | None = None
    version: Version | None = None
    identified: bool = False
    long_serial: bool = True  # which serial number the keep-alive asks for
    long_asks: int = 0  # long serial numbers asked during the handshake
    short_serial: SerialNumber | None = None  # a 5-digit answer, used if the long one never comes
    long_asks_since_short: int = 0
    pending: list[tuple[DgtReport | DgtMessage, float]] = field(default_factory=list)
    dump_asked_at: float = float("-inf")
    updates_before_dump: int = 0  # DgtReader's counter when last looked at
    battery_asked_at: float = float("-inf")
    dump_waiters: list[asyncio.Future[bool]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _ClockExchange:
    """A clock command in flight: the bytes to (re)send and the ack it waits for."""

    data: bytes
    command: ClockCommand
    answer: asyncio.Future[ClockAck]


class DgtSession(SyntheticIdentity):
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
        self._exchange: _ClockExchange | None = None
        self._end_text_at: float | None = None  # loop time to put the times back on the clock
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
    def identified(self) -> bool:
        """Whether the board on the current connection has said who it is (commands can be sent)."""
        return self._connection is not None and self._connection.identified

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

    def _on_clock_ack(self, ack: ClockAck, now: float) -> None:
        exchange = self._exchange
        if ack.spontaneous:
            data: dict[str, Any] = {"ack": [ack.ack0, ack.ack1, ack.ack2, ack.ack3]}
            if ack.button is not None:
                data["button"] = ack.button.name.lower()
            kind = {0x81: "clock_ready", 0x88: "clock_button", 0x8A: "clock_mode"}.get(
                ack.ack1, "clock_status"
            )
            self._emit(DeviceEvent(kind, data), ack.raw, now)
            return
        self._emit(
            DeviceEvent(
                "ack",
                {"clock_command": ack.ack1, "ok": ack.ok, "ack": [ack.ack0, ack.ack1, ack.ack2, ack.ack3]},
            ),
            ack.raw,
            now,
        )
        if exchange is not None and ack.command == exchange.command and not exchange.answer.done():
            exchange.answer.set_result(ack)

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

    # -- commands from the hub ----------------------------------------------------------------------------

    async def command(
        self, command: Command, *, retries: int | None = None, interval: float | None = None
    ) -> Ack:
        """Do a hub command on the board or its DGT 3000 and wait for the acknowledgement.

        ``show_text`` shows up to 8 characters on the clock (the times come back after ``seconds``),
        ``set_clock`` sets both times and the running side (SETNRUN, clock mode 23), ``resync`` reads the
        board again. Clock commands go one at a time, each resent after ``interval`` (2 s) up to ``retries``
        times; raise CommandFailed if no board is connected, the arguments are wrong or no ack comes.
        """
        retries = self._clock_retries if retries is None else retries
        interval = self._clock_retry_s if interval is None else interval
        if not self.identified:
            raise NotConnected(
                f"{self.url}: no device connected; command {command.cmd!r} not sent / cihaz bağlı değil"
            )
        self._command_seq += 1
        seq = self._command_seq
        if command.cmd == CommandName.RESYNC:
            return await self._resync(seq, retries, interval)
        if command.cmd == CommandName.SHOW_TEXT:
            text, seconds = _text_args(self.url, command.args)
            ack = await self._clock_command(
                seq, encode_clock_text(text), ClockCommand.ASCII, retries, interval
            )
            if ack.ok and seconds > 0:
                self._end_text_at = asyncio.get_running_loop().time() + seconds
                self._text_changed.set()
            return ack
        if command.cmd == CommandName.SET_CLOCK:
            data = encode_clock_set_and_run(*_clock_args(self.url, command.args))
            return await self._clock_command(seq, data, ClockCommand.SETNRUN, retries, interval)
        raise CommandFailed(f"{self.url}: a DGT board cannot {command.cmd!r} / DGT tahtası bu komutu alamaz")

    async def _clock_command(
        self, seq: int, data: bytes, command: ClockCommand, retries: int, interval: float
    ) -> Ack:
        async with self._clock_lock:
            exchange = _ClockExchange(data, command, asyncio.get_running_loop().create_future())
            self._exchange = exchange
            try:
                for attempt in range(1, retries + 2):
                    connection = self._connection
                    if connection is None or not connection.identified:
                        raise NotConnected(
                            f"{self.url}: no device connected; clock command {command.name} not sent "
                            "/ cihaz bağlı değil"
                        )
                    await self._write(connection, data)  # a failed write is retried like a lost ack
                    try:
                        async with asyncio.timeout(interval):
                            ack = await asyncio.shield(exchange.answer)
                    except TimeoutError:
                        continue
                    error = "" if ack.ok else _ack_error(command, ack)
                    return Ack(seq, ack.ok, error, attempt)
            finally:
                self._exchange = None
        raise CommandFailed(
            f"{self.url}: the DGT 3000 on board {self.device_id} did not acknowledge {command.name} after "
            f"{retries + 1} tries; is a clock connected and switched on? / saat komutu onaylamadı; "
            "saat bağlı ve açık mı?"
        )

    async def _resync(self, seq: int, retries: int, interval: float) -> Ack:
        for attempt in range(1, retries + 2):
            connection = self._connection
            if connection is None or not connection.identified:
                break
            dumped: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
            connection.dump_waiters.append(dumped)
            await self._ask_dump(connection)
            await self._write(connection, encode_command(DgtCommand.SEND_CLK))
            try:
                async with asyncio.timeout(interval):
                    if await dumped:
                        return Ack(seq, True, "", attempt)
            except TimeoutError:
                continue
            break  # the connection ended while waiting
        raise CommandFailed(f"{self.url}: the board did not send its squares again / tahta yeniden okunamadı")

    async def _text_timer(self, connection: _Connection) -> None:
        """Put the times back on the clock once a text has been shown for its seconds."""
        loop = asyncio.get_running_loop()
        while True:
            if self._end_text_at is None:
                self._text_changed.clear()
                await self._text_changed.wait()
                continue
            delay = self._end_text_at - loop.time()
            if delay > 0:
                self._text_changed.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(delay):
                        await self._text_changed.wait()
                continue
            self._end_text_at = None
            self._command_seq += 1
            # If no ack comes the text stays up; nothing to retry here, and the hub sees no ack event.
            with contextlib.suppress(CommandFailed):
                await self._clock_command(
                    self._command_seq,
                    encode_clock_end_text(),
                    ClockCommand.END,
                    self._clock_retries,
                    self._clock_retry_s,
                )

    # -- plumbing -----------------------------------------------------------------------------------------

    async def _write(self, connection: _Connection, data: bytes) -> bool:
        return await write_drained(connection.writer, data)

    def _error(self, error: DgtError | FrameError, now: float) -> None:
        self._errors += 1
        self._sink.frame_error(self.url, self._device_id, error, now)


def _serial_command(long: bool) -> bytes:
    return encode_command(DgtCommand.RETURN_LONG_SERIALNR if long else DgtCommand.RETURN_SERIALNR)


def clock_text(text: str) -> str:
    """What a DGT 3000 can show of a text: 8 printable ASCII characters, Turkish letters without accents."""
    plain = text.translate(_ASCII_FOR)
    return "".join(ch if " " <= ch <= "~" else "?" for ch in plain)[:8]


def _text_args(url: str, args: dict[str, Any]) -> tuple[str, float]:
    text, seconds = args.get("text"), args.get("seconds", 5)
    if not isinstance(text, str):
        raise CommandFailed(f"{url}: show_text needs a text, got {text!r} / show_text için metin gerekli")
    if not isinstance(seconds, int | float) or isinstance(seconds, bool) or seconds < 0:
        raise CommandFailed(f"{url}: show_text seconds must be 0 or more, got {seconds!r} / süre geçersiz")
    return clock_text(text), float(seconds)


def _clock_args(url: str, args: dict[str, Any]) -> tuple[int, int, ClockRun]:
    remaining, running = args.get("remaining_ms"), args.get("running")
    valid = (
        isinstance(remaining, list | tuple)
        and len(remaining) == 2
        and all(isinstance(ms, int) and not isinstance(ms, bool) and 0 <= ms < 36_000_000 for ms in remaining)
    )
    if not valid:
        raise CommandFailed(
            f"{url}: set_clock needs remaining_ms [left, right] from 0 to 9:59:59, got {remaining!r} "
            "/ saat süreleri geçersiz"
        )
    assert isinstance(remaining, list | tuple)
    if running not in (0, 1, None) or isinstance(running, bool):
        raise CommandFailed(f"{url}: set_clock running is 0 (left), 1 (right) or null, got {running!r}")
    # Whole seconds up: a side with half a second left must not be set to a fallen flag.
    left_s, right_s = (math.ceil(ms / 1000) for ms in remaining)
    left_s, right_s = min(left_s, 35_999), min(right_s, 35_999)
    if running is None:
        run = ClockRun.PAUSE
    else:
        # The lever keeps switching sides afterwards, as it did before the correction.
        run = (ClockRun.LEFT if running == 0 else ClockRun.RIGHT) | ClockRun.TOGGLE_ON_LEVER
    return left_s, right_s, run


def _ack_error(command: ClockCommand, ack: ClockAck) -> str:
    if command is ClockCommand.SETNRUN:
        return (
            "the clock refused SETNRUN; set the DGT 3000 to mode 23 / saat reddetti; DGT 3000'i mod 23'e alın"
        )
    return f"the clock refused {command.name} (ack 0x{ack.ack0:02x}) / saat komutu reddetti"
