"""One DGT e-board connection as a pure state machine: bytes and time in, bytes to send and events out.

The shape of `devices.wire.protocol`, for a board that sends no HELLO and no seq: it shakes hands (reset,
serial number, long or short, version; then update mode, a board dump, the clock), says a synthetic HELLO on
the board's behalf (a device id from its serial number, a boot epoch per connection, a seq growing by one per
observation), turns every change `DgtReader` reads into one observation carrying the bytes of its message,
asks the serial number every `keepalive_s` as a keep-alive, asks the board again when field updates came
before any dump, drops a link that is silent, names no board in time or suddenly names another, and runs
the hub's commands (`devices.dgt.commands`). No asyncio, no clock reads, no I/O: `now` is a monotonic time
for deadlines, `at` the wall time stamped on what it reports.
"""

from __future__ import annotations

import re
from typing import ClassVar

from devices.dgt.codec import Command as DgtCommand
from devices.dgt.codec import DgtError, MessageId, UpdateMode, encode_command, encode_update_mode
from devices.dgt.commands import DgtCommands
from devices.dgt.connection import _Connection
from devices.dgt.messages import BatteryStatus, ClockAck, DgtMessage, SerialNumber, Version
from devices.dgt.reader import DgtReader, DgtReport
from devices.events import Rejected, SessionEvent
from devices.observations import DeviceEvent, DeviceFamily, DeviceHello, Heartbeat, Observation, Report
from devices.silence import DeviceNoun, LinkReason, Silence
from devices.synthetic import next_boot_epoch
from devices.wire.codec import PROTOCOL_VERSION, FrameError, FrameErrorKind

DGT_MODEL = "DGT e-board"
BOARD = DeviceNoun("board", "tahta", "tahtadan")
_UNANSWERED_LONG_SERIALS = 2  # then ask the 5-digit serial: older boards may not know the long one
_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def dgt_device_id(serial: str) -> str:
    """The device id of a board: "dgt-" and its serial number (characters an id cannot hold become "_")."""
    return "dgt-" + _ID_UNSAFE.sub("_", serial.strip())


class DgtProtocol(DgtCommands):
    """The connection logic of one DGT board (one per session, across its reconnects)."""

    FAMILY: ClassVar[DeviceFamily] = DeviceFamily.CHESS_BOARD
    CAPABILITIES: ClassVar[tuple[str, ...]] = ("ack", "resync", "show_text", "set_clock")
    ANONYMOUS_ID: ClassVar[str] = "dgt-unknown"

    def __init__(
        self,
        url: str,
        *,
        bluetooth: bool = False,
        expected_device_id: str | None = None,
        keepalive_s: float = 1.0,
        silence_timeout: float = 5.0,
        handshake_timeout: float = 3.0,
        dump_retry_s: float = 1.0,
        clock_retry_s: float = 2.0,
        clock_retries: int = 3,
        battery_interval_s: float = 60.0,
    ) -> None:
        self.url = url
        self.bluetooth = bluetooth  # a Bluetooth board is asked its battery level
        self.expected_device_id = expected_device_id
        self._keepalive_s = keepalive_s
        self._silence = Silence(silence_timeout, BOARD)
        self._handshake_timeout = handshake_timeout
        self._dump_retry_s = dump_retry_s
        self._clock_retry_s = clock_retry_s
        self._clock_retries = clock_retries
        self._battery_interval_s = battery_interval_s
        self.reader = DgtReader()
        self._connection: _Connection | None = None
        self._long_serials: bool | None = None  # whether this board answers the long serial number
        self._device_id: str | None = None
        self.firmware = "unknown"
        self._boot_epoch = -1  # none before the first identified connection
        self._seq = 0
        self._out: list[bytes] = []
        self._events: list[SessionEvent] = []
        self.close_reason: LinkReason | None = None
        self.observations = 0  # delivered since the protocol was made
        self.errors = 0  # DGT errors (and refusals) reported
        self.keepalives_answered = 0  # serial numbers received after the handshake
        self.dumps_asked = 0  # SEND_BRD sent (handshake, field updates before a dump, resync)
        self.bytes_in = 0
        self.last_seen: float | None = None  # wall time when bytes last arrived
        self._commands_init()

    # -- what the shell asks ------------------------------------------------------------------------------

    @property
    def device_id(self) -> str | None:
        """The board's device id ("dgt-" and its serial number) once it has said it, else None."""
        return self._device_id

    @property
    def heard_device(self) -> bool:
        """Whether the board said who it is on this connection (then the backoff starts over)."""
        return self.identified

    @property
    def hello(self) -> DeviceHello:
        """The HELLO said on the board's behalf at each connection."""
        return DeviceHello(
            device_id=self._device_id or self.ANONYMOUS_ID,
            family=self.FAMILY.value,
            model=DGT_MODEL,
            firmware=self.firmware,
            protocol=PROTOCOL_VERSION,
            boot_epoch=max(self._boot_epoch, 0),
            capabilities=self.CAPABILITIES,
        )

    def data_to_send(self) -> bytes:
        """The bytes to write to the board now (empty if none); taking them empties the outbox."""
        out, self._out = self._out, []
        return b"".join(out)

    def events_received(self) -> list[SessionEvent]:
        """What happened since the last call, in the order it happened; taking them empties the list."""
        events, self._events = self._events, []
        return events

    def next_deadline(self) -> float | None:
        """When `tick` must next be called, or None if nothing waits."""
        deadlines = self._command_deadlines()
        connection = self._connection
        if connection is not None and self.close_reason is None:
            deadlines += [self._silence.deadline, connection.keepalive_due]
        return min(deadlines, default=None)

    # -- the connection -----------------------------------------------------------------------------------

    def connection_made(self, now: float, at: float | None = None) -> None:
        """A port opened: forget the board, reset it (an update mode would mix into the answers), ask who it is."""
        self.reader.reconnected()  # whatever was on the board before, it must be read again
        connection = self._connection = _Connection(now, updates_before_dump=self.reader.updates_before_dump)
        connection.keepalive_due = now + self._keepalive_s
        self.close_reason = None
        self._silence.heard(now)
        self._write(encode_command(DgtCommand.SEND_RESET))
        self._ask_serial(connection)
        self._write(encode_command(DgtCommand.SEND_VERSION))

    def connection_lost(self) -> None:
        """The port closed: nothing more can be written, and a resync waiting for a dump fails."""
        self._connection = None
        self._out.clear()
        self._commands_lost()

    def receive_data(self, data: bytes, now: float, at: float | None = None) -> None:
        """Take bytes read from the board at monotonic `now` (wall time `at`, `now` if not given)."""
        connection = self._connection
        if connection is None or self.close_reason is not None:
            return
        at = now if at is None else at
        self.bytes_in += len(data)
        self.last_seen = at
        self._silence.heard(now)
        for item in self.reader.feed(data):
            self._on_item(connection, item, now, at)
            if self.close_reason is not None:
                return  # the link ends here: what follows is read again on the next one
        self._dump_if_updates_came_first(connection, now)

    def tick(self, now: float, at: float | None = None) -> None:
        """Act on what is due at `now`: silence, the keep-alive or handshake step, resends, the text's end."""
        at = now if at is None else at
        connection = self._connection
        if connection is not None and self.close_reason is None:
            if self._silence.expired(now):
                self.close_reason = self._silence.reason()
            elif now >= connection.keepalive_due:
                connection.keepalive_due = now + self._keepalive_s
                self._keep_alive(connection, now, at)
        self._tick_commands(now)

    def _keep_alive(self, connection: _Connection, now: float, at: float) -> None:
        if not connection.identified:
            self._handshake_tick(connection, now, at)
            return
        # The answer is what keeps the link from going silent: UPDATE_NICE sends nothing while idle.
        self._write(_serial_command(connection.long_serial))
        if self.reader.needs_dump and now - connection.dump_asked_at >= self._dump_retry_s:
            self._ask_dump(now)
        if self.bluetooth and now - connection.battery_asked_at >= self._battery_interval_s:
            connection.battery_asked_at = now
            self._write(encode_command(DgtCommand.SEND_BATTERY_STATUS))

    def _handshake_tick(self, connection: _Connection, now: float, at: float) -> None:
        timed_out = now - connection.started >= self._handshake_timeout
        if (
            connection.serial is None
            and connection.short_serial is not None
            and (connection.long_asks_since_short >= _UNANSWERED_LONG_SERIALS or timed_out)
        ):
            connection.serial = connection.short_serial  # an older board: it only knows the 5-digit number
        if connection.serial is not None and (connection.version is not None or timed_out):
            self._identify(connection, now, at)  # a version that never came is "unknown"
            return
        if timed_out:
            self.close_reason = LinkReason(
                f"the board did not say its serial number within {self._handshake_timeout:g} s; "
                "is it a DGT board, switched on?",
                f"tahta {self._handshake_timeout:g} sn içinde seri numarasını söylemedi; DGT tahtası mı, açık mı?",
            )
            return
        if connection.serial is None:
            self._ask_serial(connection)
        if connection.version is None:
            self._write(encode_command(DgtCommand.SEND_VERSION))

    def _ask_serial(self, connection: _Connection) -> None:
        """Ask who the board is: the long number, which names a board for good, unless it only knows the short one.

        A board that does not answer the long question twice is asked the short one as well; its answer is
        used only if the long one still does not come, so the device id of a board never changes.
        """
        if self._long_serials is False:
            self._write(_serial_command(long=False))
            return
        connection.long_asks += 1
        if connection.short_serial is not None:
            connection.long_asks_since_short += 1
        self._write(_serial_command(long=True))
        if self._long_serials is None and connection.long_asks > _UNANSWERED_LONG_SERIALS:
            self._write(_serial_command(long=False))

    def _identify(self, connection: _Connection, now: float, at: float) -> None:
        serial = connection.serial
        assert serial is not None
        device_id = dgt_device_id(serial.serial)
        if self.expected_device_id is not None and device_id != self.expected_device_id:
            self._reject(
                FrameError(
                    FrameErrorKind.WRONG_DEVICE,
                    f"Board {device_id!r} answered on {self.url}, where {self.expected_device_id!r} is "
                    "expected; the connection is closed and tried again until the right board is there.",
                    serial.raw,
                ),
                at,
            )
            self.close_reason = LinkReason(
                f"board {device_id} is not the expected {self.expected_device_id}",
                f"{device_id} tahtası beklenen {self.expected_device_id} değil",
            )
            return
        self._device_id = device_id
        self._long_serials = connection.long_serial = serial.long
        self.firmware = str(connection.version) if connection.version else "unknown"
        self._boot_epoch = next_boot_epoch(self._boot_epoch, at)
        self._seq = 0
        connection.identified = True
        raw = serial.raw + (connection.version.raw if connection.version else b"")
        self._emit(self.hello, raw, at)
        pending, connection.pending = connection.pending, []
        for item, said_at in pending:
            self._dispatch(connection, item, now, said_at)
        # Update mode before the dump: a move made between the two is then in the dump or in an update.
        self._write(encode_update_mode(UpdateMode.UPDATE_NICE))
        self._ask_dump(now)
        self._write(encode_command(DgtCommand.SEND_CLK))
        if self.bluetooth:
            connection.battery_asked_at = now
            self._write(encode_command(DgtCommand.SEND_BATTERY_STATUS))

    # -- what the board says ------------------------------------------------------------------------------

    def _on_item(
        self, connection: _Connection, item: DgtReport | DgtMessage | DgtError, now: float, at: float
    ) -> None:
        if isinstance(item, DgtError):
            self._reject(item, at)
            return
        if connection.identified:
            self._dispatch(connection, item, now, at)
            return
        if isinstance(item, SerialNumber):
            if item.long or self._long_serials is False:
                connection.serial = connection.serial or item
            else:
                connection.short_serial = connection.short_serial or item
        elif isinstance(item, Version):
            connection.version = item
        else:
            connection.pending.append((item, at))  # said before the board said who it is: kept for later
            return
        if connection.serial is not None and connection.version is not None:
            self._identify(connection, now, at)

    def _dispatch(self, connection: _Connection, item: DgtReport | DgtMessage, now: float, at: float) -> None:
        match item:
            case DgtReport(report=report, raw=raw):
                self._emit(report, raw, at)
                if raw[:1] == bytes([MessageId.BOARD_DUMP]):
                    self._dumped()
            case SerialNumber():
                self._on_serial(connection, item)
            case Version():
                pass  # an answer to the handshake's second ask; the HELLO already carries it
            case BatteryStatus(percent=percent, raw=raw):
                self._emit(Heartbeat(battery=percent), raw, at)
            case ClockAck():
                self._on_clock_ack(item, now, at)
            case _:
                # Bus address, trademark, EEPROM log: nothing the session asked for, kept for the log.
                self._emit(DeviceEvent("dgt_message", {"message": type(item).__name__}), item.raw, at)

    def _on_serial(self, connection: _Connection, serial: SerialNumber) -> None:
        self.keepalives_answered += 1
        known = connection.serial
        if known is not None and serial.long == known.long and serial.serial != known.serial:
            self.close_reason = LinkReason(
                f"another board (serial {serial.serial}) now answers on this port; reading it afresh",
                f"bu portta artık başka bir tahta (seri {serial.serial}) var; yeniden okunuyor",
            )

    def _dump_if_updates_came_first(self, connection: _Connection, now: float) -> None:
        """Field updates before any dump describe changes to an unknown board: ask for the whole board."""
        if not connection.identified or not self.reader.needs_dump:
            return
        if self.reader.updates_before_dump == connection.updates_before_dump:
            return
        connection.updates_before_dump = self.reader.updates_before_dump
        if now - connection.dump_asked_at >= self._dump_retry_s:
            self._ask_dump(now)

    # -- plumbing -----------------------------------------------------------------------------------------

    def _ask_dump(self, now: float) -> None:
        if self._connection is not None:
            self._connection.dump_asked_at = now
        self.dumps_asked += 1
        self._write(encode_command(DgtCommand.SEND_BRD))

    def _write(self, data: bytes) -> None:
        if self._connection is not None:
            self._out.append(data)

    def _emit(self, report: Report, raw: bytes, at: float) -> None:
        device_id = self._device_id
        assert device_id is not None  # reports are delivered only once the board has said who it is
        self._events.append(Observation(device_id, self._boot_epoch, self._seq, at, report, raw))
        self._seq += 1
        self.observations += 1

    def _reject(self, error: DgtError | FrameError, at: float) -> None:
        self.errors += 1
        self._events.append(Rejected(error, at))


def _serial_command(long: bool) -> bytes:
    return encode_command(DgtCommand.RETURN_LONG_SERIALNR if long else DgtCommand.RETURN_SERIALNR)
